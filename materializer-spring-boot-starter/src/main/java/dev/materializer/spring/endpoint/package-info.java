/**
 * The {@code materializer} actuator endpoint, its web extension (404 for an unknown view on write as
 * on read) and the descriptors of its JSON responses.
 */
@NullMarked
package dev.materializer.spring.endpoint;

import org.jspecify.annotations.NullMarked;
