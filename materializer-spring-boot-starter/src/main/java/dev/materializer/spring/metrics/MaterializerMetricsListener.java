package dev.materializer.spring.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.WriteMode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Turns the engine's events into counters and a timer: changes by source, passes by outcome and
 * mode, rows written and removed. The auto-configuration adds it to the engine's listeners when
 * Micrometer is present. Thread-safe: meters are looked up once per tag set in concurrent maps.
 */
public final class MaterializerMetricsListener implements MaterializerListener {

    private final MeterRegistry registry;

    private final Map<String, Counter> changesBySource = new ConcurrentHashMap<>();

    private final Map<PassTags, Timer> passTimers = new ConcurrentHashMap<>();

    private final Counter rowsWritten;

    private final Counter rowsRemoved;

    /** @param registry where the meters go */
    public MaterializerMetricsListener(MeterRegistry registry) {
        this.registry = registry;
        this.rowsWritten = Counter.builder(MaterializerMeters.ROWS_WRITTEN)
            .description("Target rows inserted or replaced")
            .baseUnit("rows")
            .register(registry);
        this.rowsRemoved = Counter.builder(MaterializerMeters.ROWS_REMOVED)
            .description("Target rows removed")
            .baseUnit("rows")
            .register(registry);
    }

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        this.changesBySource.computeIfAbsent(source, name -> Counter.builder(MaterializerMeters.CHANGES)
            .tag(MaterializerMeters.TAG_SOURCE, name)
            .description("Change events received from the source collections")
            .baseUnit("events")
            .register(this.registry)).increment();
    }

    @Override
    public void onPassFinished(PassReport report) {
        this.passTimers.computeIfAbsent(new PassTags(report.outcome(), report.mode()), tags -> Timer.builder(MaterializerMeters.PASS)
            .tag(MaterializerMeters.TAG_OUTCOME, MaterializerMeters.tagValue(tags.outcome()))
            .tag(MaterializerMeters.TAG_MODE, MaterializerMeters.tagValue(tags.mode()))
            .description("Passes of one view")
            .register(this.registry)).record(report.duration());
        if (report.rowsWritten() > 0) {
            this.rowsWritten.increment(report.rowsWritten());
        }
        if (report.rowsRemoved() > 0) {
            this.rowsRemoved.increment(report.rowsRemoved());
        }
    }

    private record PassTags(PassOutcome outcome, WriteMode mode) {
    }
}
