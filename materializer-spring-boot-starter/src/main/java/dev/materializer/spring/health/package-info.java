/**
 * The {@code materializer} health indicator.
 */
@NullMarked
package dev.materializer.spring.health;

import org.jspecify.annotations.NullMarked;
