/** The sample shop: orders per tenant, and reports over them kept as live materialized views. */
@NullMarked
package dev.materializer.sample;

import org.jspecify.annotations.NullMarked;
