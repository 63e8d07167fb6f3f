/**
 * Spring {@code ApplicationEvent}s of the engine, for {@code @EventListener} methods: a view that
 * becomes errored and recovers, drift the reconciler found, the engine's start and stop.
 */
@NullMarked
package dev.materializer.spring.event;

import org.jspecify.annotations.NullMarked;
