/**
 * Building blocks for key-scoped incremental passes: which views can be recomputed a key at a time,
 * which keys a change affects, and the pipeline restricted to some keys. Pure functions over
 * pipelines, documents and change events; nothing here reads or writes MongoDB.
 *
 * <p>How a pass uses them:
 * <ol>
 * <li>When a view is loaded: {@link dev.materializer.core.incremental.ShapeAnalysis#of} gives its
 *     {@link dev.materializer.core.incremental.ViewShape} (an invalid {@code incremental}
 *     declaration throws the view's {@code InvalidViewException}). A FULL shape runs as today.</li>
 * <li>Per change event routed to the view:
 *     {@link dev.materializer.core.incremental.AffectedKeys#of} and
 *     {@link dev.materializer.core.incremental.AffectedKeys#union} over the events of the pass.</li>
 * <li>At the pass: a full pass when {@code needsFullPass()}; else run each key query (scoped to the
 *     partition) and add {@code shape.keyOf(document)} of what it finds; resolve
 *     {@code unknownOldKeyOf()} ids to their old keys (or run a full pass); then run
 *     {@link dev.materializer.core.incremental.KeyRestriction#pipeline} of the keys through the scope
 *     guard, replace the stored rows of those keys by its rows (matched by
 *     {@link dev.materializer.core.incremental.GroupKey}, never by BSON equality) and remove the
 *     stored rows of the keys it has no row for.</li>
 * </ol>
 *
 * <p>Nothing here depends on the write path, the guard or the engine; this package reads the view
 * definitions ({@code view}) and change events ({@code routing}), which do not depend on it.
 */
@NullMarked
package dev.materializer.core.incremental;

import org.jspecify.annotations.NullMarked;
