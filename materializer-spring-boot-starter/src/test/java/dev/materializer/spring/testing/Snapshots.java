package dev.materializer.spring.testing;

import dev.materializer.core.CatchUpProgress;
import dev.materializer.core.ReconcileProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewState;
import org.jspecify.annotations.Nullable;

/** Fixed engine snapshots for rendering tests. */
public final class Snapshots {

    /** When the views of {@link #running()} last ran. */
    public static final Instant LAST_RUN = Instant.parse("2026-01-02T03:04:05Z");

    /** When the reconciler last checked the view {@code acme/totals} of {@link #running()}. */
    public static final Instant LAST_RECONCILED = Instant.parse("2026-01-02T04:00:00Z");

    /** When the reconciler's next round starts, in {@link #reconcileBetweenRounds()}. */
    public static final Instant NEXT_ROUND_AT = Instant.parse("2026-01-02T10:00:00Z");

    /** No catch-up asked for yet. */
    public static final CatchUpProgress NO_CATCH_UP = new CatchUpProgress(0, 0, 0, 0);

    private Snapshots() {
    }

    /** A running engine with one view in each state. */
    public static MaterializerSnapshot running() {
        return of(EngineState.RUNNING, null);
    }

    /**
     * A running engine with one view in each state, between two reconciler rounds.
     */
    public static MaterializerSnapshot reconcileBetweenRounds() {
        MaterializerSnapshot running = running();
        return new MaterializerSnapshot(running.state(), running.reason(), running.openStreams(),
                running.passesInFlight(), running.lag(), running.transactions(), running.views(),
                new ReconcileProgress(3, 0, 0, 0, NEXT_ROUND_AT), running.catchUp());
    }

    /**
     * An engine in that state, with one view in each state, in round 4 of the reconciler; the view
     * {@code acme/totals} was reconciled and had drifted.
     */
    public static MaterializerSnapshot of(EngineState state, @Nullable String reason) {
        return new MaterializerSnapshot(state, reason, 3, 2, Duration.ofMillis(1500), true, List.of(
                new ViewSnapshot("acme", "totals", ViewState.OK, List.of("orders"), "order_totals", "0a1b", LAST_RUN, null,
                        PassOutcome.CHANGED, WriteMode.GENERATION, LAST_RECONCILED, 3),
                new ViewSnapshot("acme", "broken", ViewState.ERRORED, List.of("orders", "customers"), "broken_target", null,
                        LAST_RUN, "maxRows exceeded: 100001 rows", PassOutcome.ERRORED, WriteMode.NONE),
                new ViewSnapshot("globex", "a", ViewState.CYCLE, List.of("b_target"), "a_target", null, null, null, null, null),
                new ViewSnapshot("globex", "new", ViewState.PENDING, List.of("orders"), "new_target", null, null, null, null,
                        null)), new ReconcileProgress(4, 2, 3, 1, null), new CatchUpProgress(12, 9, 2, 1));
    }
}
