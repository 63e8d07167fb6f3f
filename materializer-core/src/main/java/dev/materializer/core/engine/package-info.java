/**
 * The engine's runtime: {@link dev.materializer.core.engine.ViewMaterializer}, the implementation of
 * {@link dev.materializer.core.Materializer}, and the parts it composes — the registry of views, the
 * catalog that follows the views collection, the source feed of the change streams, the passes and
 * their batches, handovers, sweeps and the reconciliation. Everything but the facade and the
 * diagnostics hook of the benchmarks (and the settings the tests of other packages build parts with)
 * is package-private: an application names the facade only.
 */
@NullMarked
package dev.materializer.core.engine;

import org.jspecify.annotations.NullMarked;
