/**
 * The engine's API: what an application names. {@link dev.materializer.core.Materializer} (the
 * facade), {@link dev.materializer.core.MaterializerOptions} and its builder, the
 * {@link dev.materializer.core.MaterializerListener} of the engine's events, the snapshot, report and
 * query types, the state enums, live views ({@link dev.materializer.core.ViewSubscriber}) and the
 * check of a view document. Nothing here depends on the engine's runtime
 * ({@code dev.materializer.core.engine}), which builds the running engine behind the facade.
 */
@NullMarked
package dev.materializer.core;

import org.jspecify.annotations.NullMarked;
