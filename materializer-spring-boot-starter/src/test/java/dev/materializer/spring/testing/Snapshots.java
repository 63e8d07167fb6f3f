package dev.materializer.spring.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.WriteMode;
import org.jspecify.annotations.Nullable;

/** Fixed engine snapshots for rendering tests. */
public final class Snapshots {

    /** When the views of {@link #running()} last ran. */
    public static final Instant LAST_RUN = Instant.parse("2026-01-02T03:04:05Z");

    private Snapshots() {
    }

    /** A running engine with one view in each state. */
    public static MaterializerSnapshot running() {
        return of(EngineState.RUNNING, null);
    }

    /** An engine in that state, with one view in each state. */
    public static MaterializerSnapshot of(EngineState state, @Nullable String reason) {
        return new MaterializerSnapshot(state, reason, 3, 2, Duration.ofMillis(1500), true, List.of(
                new ViewSnapshot("acme", "totals", "ok", List.of("orders"), "order_totals", "0a1b", LAST_RUN, null,
                        PassOutcome.CHANGED, WriteMode.GENERATION),
                new ViewSnapshot("acme", "broken", "errored", List.of("orders", "customers"), "broken_target", null,
                        LAST_RUN, "maxRows exceeded: 100001 rows", PassOutcome.ERRORED, WriteMode.NONE),
                new ViewSnapshot("globex", "a", "cycle", List.of("b_target"), "a_target", null, null, null, null, null),
                new ViewSnapshot("globex", "new", "pending", List.of("orders"), "new_target", null, null, null, null,
                        null)));
    }
}
