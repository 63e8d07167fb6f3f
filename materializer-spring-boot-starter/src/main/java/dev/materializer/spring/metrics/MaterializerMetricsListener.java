package dev.materializer.spring.metrics;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.materializer.core.EngineState;
import dev.materializer.core.Materializer;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Turns the engine's events into counters and a timer: changes by source, the changes that named no
 * partition (broadcasts) by source, passes by outcome and mode, rows written and removed, and the reconciler's comparisons by result and the rows of drift
 * it found. The auto-configuration adds it to the engine's listeners when Micrometer is present.
 * Every meter is registered before its first event, so each has a series (at zero) from the start:
 * the meters of a fixed tag set (the timer of every outcome, mode and scope; the rows; the
 * reconciler's) when it is created, and the changes and broadcasts of each source read by a view when
 * the engine runs (the sources are known only then; a source first read by a view added later gets
 * its series at its first event). The timer of passes is left out when an {@code Observation} of each pass
 * makes it (Boot's meter handler times every observation under its name): one timer per pass, not
 * two. Base units are set only where they are units (seconds), so Prometheus names do not stutter.
 * Thread-safe: meters are looked up once per tag set in concurrent maps.
 */
public final class MaterializerMetricsListener implements MaterializerListener {

    private final MeterRegistry registry;

    private final Supplier<@Nullable Materializer> engine;

    private final Map<String, Counter> changesBySource = new ConcurrentHashMap<>();

    private final Map<String, Counter> broadcastsBySource = new ConcurrentHashMap<>();

    private final Map<PassTags, Timer> passTimers = new ConcurrentHashMap<>();

    private final boolean timePasses;

    private final Counter rowsWritten;

    private final Counter rowsRemoved;

    private final Counter reconcileDrift;

    private final Map<String, Counter> reconciledByResult;

    /**
     * Meters without the changes of each source before its first event.
     * @param registry where the meters go
     */
    public MaterializerMetricsListener(MeterRegistry registry) {
        this(registry, () -> null);
    }

    /**
     * @param registry where the meters go
     * @param engine the engine, whose views name the sources when it runs; null until it exists
     */
    public MaterializerMetricsListener(MeterRegistry registry, Supplier<@Nullable Materializer> engine) {
        this(registry, engine, true);
    }

    /**
     * @param registry where the meters go
     * @param engine the engine, whose views name the sources when it runs; null until it exists
     * @param timePasses whether this times the passes ({@link MaterializerMeters#PASS}); false when an
     *     observation of each pass does
     */
    public MaterializerMetricsListener(MeterRegistry registry, Supplier<@Nullable Materializer> engine,
            boolean timePasses) {
        this.registry = registry;
        this.engine = engine;
        this.timePasses = timePasses;
        for (PassOutcome outcome : timePasses ? PassOutcome.values() : new PassOutcome[0]) {
            for (WriteMode mode : WriteMode.values()) {
                for (PassScope scope : PassScope.values()) {
                    passTimer(new PassTags(outcome, mode, scope));
                }
            }
        }
        this.rowsWritten = Counter.builder(MaterializerMeters.ROWS_WRITTEN)
            .description("Target rows inserted or replaced")
            .register(registry);
        this.rowsRemoved = Counter.builder(MaterializerMeters.ROWS_REMOVED)
            .description("Target rows removed")
            .register(registry);
        this.reconcileDrift = Counter.builder(MaterializerMeters.RECONCILE_DRIFT)
            .description("Rows of drift the reconciler found and healed: rows of views that differed from their "
                    + "pipeline with no work pending")
            .register(registry);
        Map<String, Counter> byResult = new LinkedHashMap<>();
        for (String result : MaterializerMeters.RECONCILE_RESULTS) {
            byResult.put(result, Counter.builder(MaterializerMeters.RECONCILE_VIEWS)
                .tag(MaterializerMeters.TAG_RESULT, result)
                .description("Views the reconciler compared with their pipeline, by result")
                .register(registry));
        }
        this.reconciledByResult = Map.copyOf(byResult);
    }

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        changes(source).increment();
    }

    /** Counts an event that named no partition, by its source. */
    @Override
    public void onBroadcastEvent(String source) {
        broadcasts(source).increment();
    }

    /**
     * Once the engine runs, its views name the sources: each gets its series of changes and of
     * broadcasts at zero. Reads the engine's views once per start.
     */
    @Override
    public void onStateChanged(EngineState state, @Nullable String reason) {
        if (state != EngineState.RUNNING) {
            return;
        }
        Materializer materializer = this.engine.get();
        if (materializer != null) {
            for (ViewSnapshot view : materializer.snapshot().views()) {
                view.sources().forEach(source -> {
                    changes(source);
                    broadcasts(source);
                });
            }
        }
    }

    private Counter changes(String source) {
        return this.changesBySource.computeIfAbsent(source, name -> Counter.builder(MaterializerMeters.CHANGES)
            .tag(MaterializerMeters.TAG_SOURCE, name)
            .description("Change events received from the source collections")
            .register(this.registry));
    }

    private Counter broadcasts(String source) {
        return this.broadcastsBySource.computeIfAbsent(source, name -> Counter
            .builder(MaterializerMeters.ROUTING_BROADCAST)
            .tag(MaterializerMeters.TAG_SOURCE, name)
            .description("Change events that named no partition and so reached every partition reading their source")
            .register(this.registry));
    }

    private Timer passTimer(PassTags key) {
        return this.passTimers.computeIfAbsent(key, tags -> Timer.builder(MaterializerMeters.PASS)
            .tag(MaterializerMeters.TAG_OUTCOME, MaterializerMeters.tagValue(tags.outcome()))
            .tag(MaterializerMeters.TAG_MODE, MaterializerMeters.tagValue(tags.mode()))
            .tag(MaterializerMeters.TAG_SCOPE, MaterializerMeters.tagValue(tags.scope()))
            .description("Passes of one view")
            .register(this.registry));
    }

    @Override
    public void onPassFinished(PassReport report) {
        if (this.timePasses) {
            passTimer(new PassTags(report.outcome(), report.mode(), report.scope())).record(report.duration());
        }
        if (report.rowsWritten() > 0) {
            this.rowsWritten.increment(report.rowsWritten());
        }
        if (report.rowsRemoved() > 0) {
            this.rowsRemoved.increment(report.rowsRemoved());
        }
    }

    private record PassTags(PassOutcome outcome, WriteMode mode, PassScope scope) {
    }

    /**
     * Counts the comparison by its result, and its differing rows when they were drift. A
     * comparison whose pipeline could not run is not counted: the view's passes report that failure.
     */
    @Override
    public void onReconciled(ViewKey view, VerifyReport report, boolean drift) {
        if (report.error() != null) {
            return;
        }
        String result = report.inSync() ? MaterializerMeters.RESULT_IN_SYNC
                : drift ? MaterializerMeters.RESULT_DRIFT : MaterializerMeters.RESULT_PENDING;
        this.reconciledByResult.get(result).increment();
        if (drift && report.differences() > 0) {
            this.reconcileDrift.increment(report.differences());
        }
    }
}
