package dev.materializer.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * How far the reconciler is: it re-runs every view in rounds and compares the result with the
 * stored rows, to find and heal drift.
 *
 * @param round the round running now, from 1; 0 before the first
 * @param done views of this round checked or skipped
 * @param total views in this round
 * @param skipped views of this round skipped because their partition was busy
 * @param nextRoundAt when the next round starts, when none runs now
 */
public record ReconcileProgress(long round, int done, int total, int skipped, @Nullable Instant nextRoundAt) {

    /** Before any round, or when off. */
    public static final ReconcileProgress NONE = new ReconcileProgress(0, 0, 0, 0, null);
}
