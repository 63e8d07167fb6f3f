/**
 * Micrometer meters of the materializer: gauges from the engine's counts and summary, counters and a
 * timer from its listener.
 */
@NullMarked
package dev.materializer.spring.metrics;

import org.jspecify.annotations.NullMarked;
