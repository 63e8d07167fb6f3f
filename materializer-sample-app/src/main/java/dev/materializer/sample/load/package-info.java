/** The load generator of the profile {@code load}: tenants, orders and a steady stream of updates. */
@NullMarked
package dev.materializer.sample.load;

import org.jspecify.annotations.NullMarked;
