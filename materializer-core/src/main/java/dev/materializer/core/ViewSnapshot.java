package dev.materializer.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;


/**
 * One view as this instance knows it.
 *
 * @param partition the partition of the view
 * @param id the text of the view's {@code _id}
 * @param state its state: pending (not run yet), ok, errored, in a cycle, or blocked by a shared target
 * @param sources the source collections
 * @param target the target collection
 * @param generation the current generation (its number; the hex id of a legacy one), when there is one
 * @param lastRun when it last ran here
 * @param lastError why it is errored
 * @param lastOutcome how its last pass ended
 * @param lastMode how its last pass wrote
 * @param lastReconciled when the reconciler last compared it with its pipeline here
 * @param driftRows rows of drift the reconciler found and healed here since this instance started
 * @param lastScope what its last pass recomputed: the whole view, or the rows of some keys
 * @param lastScopeNote which keys, or why the last pass was whole
 */
public record ViewSnapshot(String partition, String id, ViewState state, List<String> sources, String target,
        @Nullable String generation, @Nullable Instant lastRun, @Nullable String lastError,
        @Nullable PassOutcome lastOutcome, @Nullable WriteMode lastMode, @Nullable Instant lastReconciled,
        long driftRows, @Nullable PassScope lastScope, @Nullable String lastScopeNote) {

    /** Copies the sources so the record stays immutable. */
    public ViewSnapshot {
        sources = List.copyOf(sources);
    }

    /**
     * A view whose last pass's scope is not known.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @param state its state
     * @param sources the source collections
     * @param target the target collection
     * @param generation the current generation
     * @param lastRun when it last ran here
     * @param lastError why it is errored
     * @param lastOutcome how its last pass ended
     * @param lastMode how its last pass wrote
     * @param lastReconciled when the reconciler last compared it
     * @param driftRows rows of drift healed here
     */
    public ViewSnapshot(String partition, String id, ViewState state, List<String> sources, String target,
            @Nullable String generation, @Nullable Instant lastRun, @Nullable String lastError,
            @Nullable PassOutcome lastOutcome, @Nullable WriteMode lastMode, @Nullable Instant lastReconciled,
            long driftRows) {
        this(partition, id, state, sources, target, generation, lastRun, lastError, lastOutcome, lastMode,
                lastReconciled, driftRows, null, null);
    }

    /**
     * A view the reconciler has not checked.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @param state its state
     * @param sources the source collections
     * @param target the target collection
     * @param generation the current generation (its number; the hex id of a legacy one)
     * @param lastRun when it last ran here
     * @param lastError why it is errored
     * @param lastOutcome how its last pass ended
     * @param lastMode how its last pass wrote
     */
    public ViewSnapshot(String partition, String id, ViewState state, List<String> sources, String target,
            @Nullable String generation, @Nullable Instant lastRun, @Nullable String lastError,
            @Nullable PassOutcome lastOutcome, @Nullable WriteMode lastMode) {
        this(partition, id, state, sources, target, generation, lastRun, lastError, lastOutcome, lastMode, null, 0);
    }
}
