package dev.materializer.core;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A read-only picture of the engine at one moment, for the actuator endpoint, meters and health.
 *
 * @param state what the engine does
 * @param reason why it is not running, when it is not
 * @param openStreams change streams open now (one per source collection, plus the views stream)
 * @param passesInFlight passes running or queued now
 * @param lag how far the last event was behind the server's time, when known
 * @param transactions whether the deployment offers transactions (the writer chosen)
 * @param views every view this instance knows
 * @param reconcile how far the reconciler's round is
 * @param catchUp how far the catch-ups are (a start, partitions taken over, a stream that lost its
 *     history): they take turns, a few partitions at a time
 */
public record MaterializerSnapshot(EngineState state, @Nullable String reason, int openStreams, int passesInFlight,
        @Nullable Duration lag, boolean transactions, List<ViewSnapshot> views, ReconcileProgress reconcile,
        CatchUpProgress catchUp) {

    /** Copies the views so the record stays immutable. */
    public MaterializerSnapshot {
        views = List.copyOf(views);
    }

    /**
     * A snapshot without a reconciler round.
     * @param state what the engine does
     * @param reason why it is not running, when it is not
     * @param openStreams change streams open now
     * @param passesInFlight passes running or queued now
     * @param lag how far the last event was behind the server's time, when known
     * @param transactions whether the deployment offers transactions
     * @param views every view this instance knows
     */
    public MaterializerSnapshot(EngineState state, @Nullable String reason, int openStreams, int passesInFlight,
            @Nullable Duration lag, boolean transactions, List<ViewSnapshot> views) {
        this(state, reason, openStreams, passesInFlight, lag, transactions, views, ReconcileProgress.NONE,
                CatchUpProgress.NONE);
    }
}
