package dev.materializer.spring.health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health component {@code materializer}: whether the engine runs.
 *
 * <ul>
 * <li>{@code UP} while the engine is {@code RUNNING};</li>
 * <li>{@code UNKNOWN} while it is {@code NEW} or {@code STARTING}: a start takes moments and is not a
 * fault, and {@code UNKNOWN} does not pull the application's aggregate status down;</li>
 * <li>{@code DOWN}, with the engine's reason, otherwise: {@code RETRYING} (for example MongoDB
 * unreachable), {@code STOPPING}, {@code STOPPED}.</li>
 * </ul>
 * Errored views and views in a cycle are listed in the details (at most {@value #MAX_LISTED_VIEWS}
 * of each, by partition and id) without turning the component {@code DOWN}: they are faults of view
 * definitions or data, not of the engine, and the engine keeps the other views live.
 *
 * <p>A check reads the engine's {@link Materializer#summary() summary} and
 * {@link Materializer#viewCounts() counts}, and asks for a page of views only for a state that has
 * some, so a probe of a healthy engine copies no view whatever their number. Thread-safe: holds no
 * state.
 */
public final class MaterializerHealthIndicator implements HealthIndicator {

    /** The most errored (or cycle) views listed in the details. */
    public static final int MAX_LISTED_VIEWS = 20;

    private final Materializer materializer;

    /** @param materializer the engine to report on */
    public MaterializerHealthIndicator(Materializer materializer) {
        this.materializer = materializer;
    }

    @Override
    public Health health() {
        try {
            return describe();
        }
        catch (RuntimeException ex) {
            return Health.down(ex).build();
        }
    }

    private Health describe() {
        MaterializerSnapshot summary = this.materializer.summary();
        Map<ViewState, Integer> counts = this.materializer.viewCounts();
        Health.Builder health = Health.status(status(summary));
        health.withDetail("state", summary.state().name().toLowerCase(Locale.ROOT));
        if (summary.reason() != null) {
            health.withDetail("reason", summary.reason());
        }
        health.withDetail("openStreams", summary.openStreams());
        health.withDetail("passesInFlight", summary.passesInFlight());
        Duration lag = summary.lag();
        if (lag != null) {
            health.withDetail("lagSeconds", lag.toNanos() / 1e9);
        }
        health.withDetail("views", counts.values().stream().mapToInt(Integer::intValue).sum());
        listViews(health, counts, ViewState.ERRORED);
        listViews(health, counts, ViewState.CYCLE);
        listViews(health, counts, ViewState.TARGET_SHARED);
        return health.build();
    }

    private static Status status(MaterializerSnapshot snapshot) {
        return switch (snapshot.state()) {
            case RUNNING -> Status.UP;
            case NEW, STARTING -> Status.UNKNOWN;
            case RETRYING, STOPPING, STOPPED -> Status.DOWN;
        };
    }

    /** Lists the first views in that state, asking the engine for them only when its counts have some. */
    private void listViews(Health.Builder health, Map<ViewState, Integer> counts, ViewState state) {
        if (counts.getOrDefault(state, 0) == 0) {
            return;
        }
        ViewPage inState = this.materializer.views(new ViewQuery(null, state, 0, MAX_LISTED_VIEWS));
        if (inState.total() == 0) {
            return;
        }
        List<Map<String, Object>> listed = inState.views().stream().map(view -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("partition", view.partition());
            entry.put("id", view.id());
            if (view.lastError() != null) {
                entry.put("lastError", view.lastError());
            }
            return entry;
        }).toList();
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("count", inState.total());
        detail.put("views", listed);
        health.withDetail(state.value(), detail);
    }
}
