/**
 * The reconciler: the safety net that re-runs every owned view now and then, in a rolling,
 * rate-limited way, and counts what it had to heal as drift.
 */
@NullMarked
package dev.materializer.core.reconcile;

import org.jspecify.annotations.NullMarked;
