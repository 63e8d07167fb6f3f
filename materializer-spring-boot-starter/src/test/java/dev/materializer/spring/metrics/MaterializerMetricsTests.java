package dev.materializer.spring.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The meters from the engine's snapshot and events. */
class MaterializerMetricsTests {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final RecordingMaterializer engine = new RecordingMaterializer();

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private final MaterializerLag lag = new MaterializerLag(() -> this.engine, this.nanos::get);

    @Test
    void theGaugesReadTheCountsAndTheSummaryWhenSampled() {
        new MaterializerMeterBinder(this.engine, this.lag).bindTo(this.registry);
        this.engine.setSnapshot(Snapshots.running());

        for (String state : List.of("ok", "errored", "cycle", "pending")) {
            assertThat(this.registry.get(MaterializerMeters.VIEWS).tag("state", state).gauge().value()).as(state)
                .isEqualTo(1.0);
        }
        assertThat(this.registry.get(MaterializerMeters.STREAMS_OPEN).gauge().value()).isEqualTo(3.0);
        assertThat(this.registry.get(MaterializerMeters.PASSES_IN_FLIGHT).gauge().value()).isEqualTo(2.0);
        assertThat(this.registry.get(MaterializerMeters.LAG).gauge().value()).as("caught up").isZero();

        this.engine.setSnapshot(new MaterializerSnapshot(EngineState.RETRYING, "down", 0, 0, null, false, List.of()));
        assertThat(this.registry.get(MaterializerMeters.VIEWS).tag("state", "ok").gauge().value()).isZero();
        assertThat(this.registry.get(MaterializerMeters.STREAMS_OPEN).gauge().value()).isZero();
        assertThat(this.registry.get(MaterializerMeters.LAG).gauge().value()).as("no change heard").isZero();
    }

    @Test
    void overTwoInstancesThatKnowEveryViewTheViewGaugesAddUpToEachViewOnce() {
        // Both know the four views of Snapshots.running(); acme is owned by the first, globex by the second.
        RecordingMaterializer other = new RecordingMaterializer();
        SimpleMeterRegistry otherRegistry = new SimpleMeterRegistry();
        this.engine.setSnapshot(Snapshots.running());
        other.setSnapshot(Snapshots.running());
        this.engine.setOwned("acme"::equals);
        other.setOwned("globex"::equals);
        new MaterializerMeterBinder(this.engine, this.lag).bindTo(this.registry);
        new MaterializerMeterBinder(other, new MaterializerLag(() -> other, this.nanos::get)).bindTo(otherRegistry);

        for (String state : List.of("ok", "errored", "cycle", "pending")) {
            double sum = this.registry.get(MaterializerMeters.VIEWS).tag("state", state).gauge().value()
                    + otherRegistry.get(MaterializerMeters.VIEWS).tag("state", state).gauge().value();
            assertThat(sum).as(state).isEqualTo(1.0);
        }
        assertThat(this.registry.get(MaterializerMeters.VIEWS).tag("state", "pending").gauge().value())
            .as("globex's pending view is the other's").isZero();
    }

    @Test
    void theStreamsKeptAreAGaugeBesideTheOpenOnes() {
        new MaterializerMeterBinder(this.engine, this.lag).bindTo(this.registry);
        this.engine.setSnapshot(Snapshots.running());
        assertThat(this.registry.get(MaterializerMeters.STREAMS_WATCHED).gauge().value()).isEqualTo(3.0);
    }

    @Test
    void aScrapeReadsNoSnapshotSoItDoesNotCopyTheViews() {
        new MaterializerMeterBinder(this.engine, this.lag).bindTo(this.registry);
        this.engine.setSnapshot(Snapshots.running());

        this.registry.getMeters().forEach(meter -> meter.measure().forEach(measurement -> measurement.getValue()));

        assertThat(this.registry.get(MaterializerMeters.VIEWS).tag("state", "errored").gauge().value()).isEqualTo(1.0);
        assertThat(this.registry.get(MaterializerMeters.LAG).gauge().value()).isZero();
        assertThat(this.engine.snapshotCalls()).isZero();
    }

    @Test
    void everyViewStateHasAGaugeEvenAtZero() {
        new MaterializerMeterBinder(this.engine, this.lag).bindTo(this.registry);
        assertThat(this.registry.get(MaterializerMeters.VIEWS).gauges()).hasSize(5);
        assertThat(this.registry.get(MaterializerMeters.VIEWS).tag("state", "errored").gauge().value()).isZero();
        assertThat(this.registry.get(MaterializerMeters.VIEWS).tag("state", "target_shared").gauge().value()).isZero();
    }

    @Test
    void changesAreCountedBySource() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry);
        listener.onChange("orders", Duration.ofMillis(5));
        listener.onChange("orders", null);
        listener.onChange("customers", null);
        assertThat(this.registry.get(MaterializerMeters.CHANGES).tag("source", "orders").counter().count()).isEqualTo(2);
        assertThat(this.registry.get(MaterializerMeters.CHANGES).tag("source", "customers").counter().count()).isEqualTo(1);
    }

    @Test
    void broadcastsAreCountedBySourceApartFromTheChanges() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry);
        listener.onChange("orders", null);
        listener.onBroadcastEvent("orders");
        listener.onBroadcastEvent("orders");
        listener.onBroadcastEvent("customers");

        Counter orders = this.registry.get(MaterializerMeters.ROUTING_BROADCAST).tag("source", "orders").counter();
        assertThat(orders.count()).isEqualTo(2);
        assertThat(orders.getId().getBaseUnit()).as("it counts events: no unit").isNull();
        assertThat(orders.getId().getDescription()).contains("named no partition");
        assertThat(this.registry.get(MaterializerMeters.ROUTING_BROADCAST).tag("source", "customers").counter().count())
            .isEqualTo(1);
        assertThat(this.registry.get(MaterializerMeters.CHANGES).tag("source", "orders").counter().count())
            .as("a broadcast is not a change more").isEqualTo(1);
    }

    @Test
    void passesAreTimedByOutcomeAndModeAndTheirRowsCounted() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry);
        ViewKey view = new ViewKey("acme", "totals");
        listener.onPassFinished(new PassReport(view, WriteMode.GENERATION, PassOutcome.CHANGED, 10, 3, Duration.ofMillis(200), null));
        listener.onPassFinished(new PassReport(view, WriteMode.GENERATION, PassOutcome.CHANGED, 5, 0, Duration.ofMillis(100), null));
        listener.onPassFinished(new PassReport(view, WriteMode.NONE, PassOutcome.ERRORED, 0, 0, Duration.ofMillis(1), "bad"));
        listener.onPassFinished(new PassReport(view, WriteMode.TRANSACTION, PassOutcome.CHANGED, 1, 0, Duration.ofMillis(4),
                null, dev.materializer.core.PassScope.KEYS, "1 key of customer"));

        Timer changed = this.registry.get(MaterializerMeters.PASS).tag("outcome", "changed").tag("mode", "generation")
            .tag("scope", "full").timer();
        assertThat(changed.count()).isEqualTo(2);
        assertThat(changed.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(300);
        assertThat(this.registry.get(MaterializerMeters.PASS).tag("outcome", "errored").tag("mode", "none")
            .tag("scope", "full").timer().count()).isEqualTo(1);
        assertThat(this.registry.get(MaterializerMeters.PASS).tag("outcome", "changed").tag("mode", "transaction")
            .tag("scope", "keys").timer().count()).as("key-scoped").isEqualTo(1);
        assertThat(this.registry.get(MaterializerMeters.PASS).tag("scope", "keys").timers().stream()
            .mapToLong(Timer::count).sum()).as("no other key-scoped pass").isEqualTo(1);
        assertThat(this.registry.get(MaterializerMeters.ROWS_WRITTEN).counter().count()).isEqualTo(16);
        assertThat(this.registry.get(MaterializerMeters.ROWS_REMOVED).counter().count()).isEqualTo(3);
    }

    @Test
    void theReconcileMetersExistAtZeroBeforeAnyComparison() {
        new MaterializerMetricsListener(this.registry);
        assertThat(this.registry.get(MaterializerMeters.RECONCILE_DRIFT).counter().count()).isZero();
        assertThat(this.registry.get(MaterializerMeters.RECONCILE_DRIFT).counter().getId().getTags()).as("tag-free")
            .isEmpty();
        assertThat(this.registry.get(MaterializerMeters.RECONCILE_VIEWS).counters()).hasSize(3);
        for (String result : List.of("in_sync", "drift", "pending")) {
            assertThat(this.registry.get(MaterializerMeters.RECONCILE_VIEWS).tag("result", result).counter().count())
                .as(result).isZero();
        }
    }

    @Test
    void driftCountsTheRowsThatDifferedAndTheViewsByResult() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry);
        ViewKey view = new ViewKey("acme", "totals");
        listener.onReconciled(view, verified(view, 0, 0, 0, null), false);
        listener.onReconciled(view, verified(view, 0, 0, 0, null), false);
        listener.onReconciled(view, verified(view, 1, 2, 3, null), true);
        listener.onReconciled(view, verified(view, 0, 4, 0, null), true);

        assertThat(this.registry.get(MaterializerMeters.RECONCILE_DRIFT).counter().count()).as("1 + 2 + 3 + 4 rows")
            .isEqualTo(10);
        assertThat(reconciled("in_sync")).isEqualTo(2);
        assertThat(reconciled("drift")).isEqualTo(2);
        assertThat(reconciled("pending")).isZero();
    }

    @Test
    void aDifferenceWhileWorkWasPendingIsNotDrift() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry);
        ViewKey view = new ViewKey("acme", "totals");
        listener.onReconciled(view, verified(view, 5, 0, 1, null), false);

        assertThat(reconciled("pending")).isEqualTo(1);
        assertThat(reconciled("drift")).isZero();
        assertThat(this.registry.get(MaterializerMeters.RECONCILE_DRIFT).counter().count()).isZero();
    }

    @Test
    void aComparisonWhosePipelineCouldNotRunIsNotCounted() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry);
        ViewKey view = new ViewKey("acme", "broken");
        listener.onReconciled(view, verified(view, 0, 0, 0, "maxRows exceeded"), false);

        for (String result : MaterializerMeters.RECONCILE_RESULTS) {
            assertThat(reconciled(result)).as(result).isZero();
        }
        assertThat(this.registry.get(MaterializerMeters.RECONCILE_VIEWS).counters()).as("no other result tag").hasSize(3);
    }

    @Test
    void everyPassTimerExistsAtZeroBeforeAnyPass() {
        new MaterializerMetricsListener(this.registry);
        int combinations = dev.materializer.core.PassOutcome.values().length * WriteMode.values().length
                * dev.materializer.core.PassScope.values().length;
        assertThat(this.registry.get(MaterializerMeters.PASS).timers()).hasSize(combinations);
        assertThat(this.registry.get(MaterializerMeters.PASS).tag("outcome", "errored").tag("mode", "none")
            .tag("scope", "full").timer().count()).isZero();
        assertThat(this.registry.get(MaterializerMeters.ROWS_WRITTEN).counter().count()).isZero();
        assertThat(this.registry.get(MaterializerMeters.ROWS_REMOVED).counter().count()).isZero();
    }

    @Test
    void theChangesOfEverySourceReadByAViewExistAtZeroOnceTheEngineRuns() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry, () -> this.engine);
        this.engine.setSnapshot(Snapshots.running());
        assertThat(this.registry.find(MaterializerMeters.CHANGES).counters()).as("no source known yet").isEmpty();

        listener.onStateChanged(EngineState.STARTING, "connecting");
        assertThat(this.registry.find(MaterializerMeters.CHANGES).counters()).isEmpty();
        listener.onStateChanged(EngineState.RUNNING, null);

        for (String source : List.of("orders", "customers", "b_target")) {
            assertThat(this.registry.get(MaterializerMeters.CHANGES).tag("source", source).counter().count())
                .as(source).isZero();
        }
        listener.onChange("orders", null);
        assertThat(this.registry.get(MaterializerMeters.CHANGES).tag("source", "orders").counter().count()).isEqualTo(1);
        assertThat(this.registry.get(MaterializerMeters.CHANGES).counters()).hasSize(3);
    }

    @Test
    void theBroadcastsOfEverySourceReadByAViewExistAtZeroOnceTheEngineRuns() {
        MaterializerMetricsListener listener = new MaterializerMetricsListener(this.registry, () -> this.engine);
        this.engine.setSnapshot(Snapshots.running());
        listener.onStateChanged(EngineState.STARTING, "connecting");
        assertThat(this.registry.find(MaterializerMeters.ROUTING_BROADCAST).counters()).as("no source known yet")
            .isEmpty();

        listener.onStateChanged(EngineState.RUNNING, null);
        for (String source : List.of("orders", "customers", "b_target")) {
            assertThat(this.registry.get(MaterializerMeters.ROUTING_BROADCAST).tag("source", source).counter().count())
                .as(source).isZero();
        }
        listener.onBroadcastEvent("returns");
        assertThat(this.registry.get(MaterializerMeters.ROUTING_BROADCAST).tag("source", "returns").counter().count())
            .as("a source first read later, at its first event").isEqualTo(1);
        assertThat(this.registry.get(MaterializerMeters.ROUTING_BROADCAST).counters()).hasSize(4);
    }

    private double reconciled(String result) {
        return this.registry.get(MaterializerMeters.RECONCILE_VIEWS).tag(MaterializerMeters.TAG_RESULT, result).counter()
            .count();
    }

    private static VerifyReport verified(ViewKey view, long missing, long changed, long extra, @Nullable String error) {
        return new VerifyReport(view, 10, missing, changed, extra, Duration.ofMillis(5), error);
    }
}
