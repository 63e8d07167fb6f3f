package dev.materializer.spring.health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.ViewSnapshot;

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
 * of each) without turning the component {@code DOWN}: they are faults of view definitions or data,
 * not of the engine, and the engine keeps the other views live. Thread-safe: holds no state.
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
        MaterializerSnapshot snapshot;
        try {
            snapshot = this.materializer.snapshot();
        }
        catch (RuntimeException ex) {
            return Health.down(ex).build();
        }
        Health.Builder health = Health.status(status(snapshot));
        health.withDetail("state", snapshot.state().name().toLowerCase(Locale.ROOT));
        if (snapshot.reason() != null) {
            health.withDetail("reason", snapshot.reason());
        }
        health.withDetail("openStreams", snapshot.openStreams());
        health.withDetail("passesInFlight", snapshot.passesInFlight());
        Duration lag = snapshot.lag();
        if (lag != null) {
            health.withDetail("lagSeconds", lag.toNanos() / 1e9);
        }
        health.withDetail("views", snapshot.views().size());
        listViews(health, snapshot.views(), "errored");
        listViews(health, snapshot.views(), "cycle");
        return health.build();
    }

    private static Status status(MaterializerSnapshot snapshot) {
        return switch (snapshot.state()) {
            case RUNNING -> Status.UP;
            case NEW, STARTING -> Status.UNKNOWN;
            case RETRYING, STOPPING, STOPPED -> Status.DOWN;
        };
    }

    private static void listViews(Health.Builder health, List<ViewSnapshot> views, String state) {
        List<ViewSnapshot> inState = views.stream().filter(view -> view.state().equals(state)).toList();
        if (inState.isEmpty()) {
            return;
        }
        List<Map<String, Object>> listed = inState.stream().limit(MAX_LISTED_VIEWS).map(view -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("partition", view.partition());
            entry.put("id", view.id());
            if (view.lastError() != null) {
                entry.put("lastError", view.lastError());
            }
            return entry;
        }).toList();
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("count", inState.size());
        detail.put("views", listed);
        health.withDetail(state, detail);
    }
}
