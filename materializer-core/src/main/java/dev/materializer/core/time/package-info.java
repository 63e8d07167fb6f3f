/**
 * The engine's clock: the time and the timers, injected so tests are deterministic.
 */
@NullMarked
package dev.materializer.core.time;

import org.jspecify.annotations.NullMarked;
