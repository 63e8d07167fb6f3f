/**
 * Auto-configuration of the materializer's Micrometer Observations, active only with an
 * {@code ObservationRegistry} bean.
 */
@NullMarked
package dev.materializer.spring.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
