/**
 * Read-your-writes: waiting until a view reflects the changes of its sources made before the wait
 * began. {@link dev.materializer.core.freshness.CaughtUpSince} judges, from what the owner of the
 * partition knows, whether it applied everything committed before a moment — for
 * {@link dev.materializer.core.freshness.FreshnessWait} and for the reconciler's drift; on another
 * instance, the times every pass records in the view's status
 * ({@link dev.materializer.core.view.CoveredTimes}) answer.
 */
@NullMarked
package dev.materializer.core.freshness;

import org.jspecify.annotations.NullMarked;
