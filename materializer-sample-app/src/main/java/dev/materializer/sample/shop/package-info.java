/** The shop itself: tenants, their orders and their product catalogues, over REST. */
@NullMarked
package dev.materializer.sample.shop;

import org.jspecify.annotations.NullMarked;
