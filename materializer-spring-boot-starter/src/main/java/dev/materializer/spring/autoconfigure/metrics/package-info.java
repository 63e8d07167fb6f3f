/**
 * Auto-configuration of the materializer's Micrometer meters, active only with Micrometer and a
 * {@code MeterRegistry} bean.
 */
@NullMarked
package dev.materializer.spring.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
