/**
 * Auto-configuration of the {@code materializer} actuator endpoint, active only with actuator and when
 * the endpoint is exposed.
 */
@NullMarked
package dev.materializer.spring.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
