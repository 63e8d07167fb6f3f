/**
 * The {@code materializer} actuator endpoint and the descriptors of its JSON responses.
 */
@NullMarked
package dev.materializer.spring.endpoint;

import org.jspecify.annotations.NullMarked;
