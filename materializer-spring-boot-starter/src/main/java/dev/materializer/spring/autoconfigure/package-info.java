/**
 * Auto-configuration of the materializer: the {@code materializer.*} properties, the engine bean, its
 * options customizers and the lifecycle that starts and drains it with the application context.
 */
@NullMarked
package dev.materializer.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
