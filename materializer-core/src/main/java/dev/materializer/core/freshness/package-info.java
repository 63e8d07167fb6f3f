/**
 * Read-your-writes: waiting until a view reflects the changes of its sources made before the wait
 * began. {@link dev.materializer.core.freshness.FreshnessWait} decides it from what the owner of the
 * partition knows; on another instance, the times every pass records in the view's status
 * ({@link dev.materializer.core.view.CoveredTimes}) answer.
 */
@NullMarked
package dev.materializer.core.freshness;

import org.jspecify.annotations.NullMarked;
