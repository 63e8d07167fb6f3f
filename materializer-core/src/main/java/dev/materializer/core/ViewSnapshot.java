package dev.materializer.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One view as this instance knows it.
 *
 * @param partition the partition of the view
 * @param id the text of the view's {@code _id}
 * @param state {@code pending} (not run yet), {@code ok}, {@code errored} or {@code cycle}
 * @param sources the source collections
 * @param target the target collection
 * @param generation the hex of the current generation, when there is one
 * @param lastRun when it last ran here
 * @param lastError why it is errored
 * @param lastOutcome how its last pass ended
 * @param lastMode how its last pass wrote
 */
public record ViewSnapshot(String partition, String id, String state, List<String> sources, String target,
        @Nullable String generation, @Nullable Instant lastRun, @Nullable String lastError,
        @Nullable PassOutcome lastOutcome, @Nullable WriteMode lastMode) {

    /** Copies the sources so the record stays immutable. */
    public ViewSnapshot {
        sources = List.copyOf(sources);
    }
}
