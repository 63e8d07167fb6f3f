package dev.materializer.spring.metrics;

import dev.materializer.core.Materializer;
import dev.materializer.core.ViewState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Gauges read from the engine when the registry samples them: views by state from
 * {@link Materializer#ownedViewCounts()} (the views of the partitions this instance owns, so the
 * sum over the instances of a cluster counts each view once, where each instance knows every view
 * and keeps those it does not own {@code pending}), open streams and passes in flight from
 * {@link Materializer#summary()}, the streams kept from {@link Materializer#watchedStreams()}, and the lag from {@link MaterializerLag} (the changes it heard)
 * and {@link Materializer#caughtUp()}. Every gauge is registered at bind time and reads 0 (never
 * NaN) while there is nothing to report. Neither copies the views, so a scrape costs the same with forty
 * thousand views as with four; {@link Materializer#snapshot()} is never read. The view states are a
 * fixed set, so each has its own gauge and reports zero when no view is in it (an alert on
 * {@code errored > 0} then always has a series). Thread-safe: holds no state of its own.
 */
public final class MaterializerMeterBinder implements MeterBinder {

    private final Materializer materializer;

    private final MaterializerLag lag;

    /**
     * @param materializer the engine to observe
     * @param lag the changes heard and not yet applied; it must hear the engine's events
     */
    public MaterializerMeterBinder(Materializer materializer, MaterializerLag lag) {
        this.materializer = materializer;
        this.lag = lag;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (ViewState state : ViewState.values()) {
            Gauge.builder(MaterializerMeters.VIEWS, this.materializer, engine -> viewsIn(engine, state))
                .tag(MaterializerMeters.TAG_STATE, state.value())
                .description("Views whose partition this instance owns, by state")
                .register(registry);
        }
        Gauge.builder(MaterializerMeters.STREAMS_OPEN, this.materializer, engine -> engine.summary().openStreams())
            .description("Change streams open now")
            .register(registry);
        Gauge.builder(MaterializerMeters.STREAMS_WATCHED, this.materializer, Materializer::watchedStreams)
            .description("Change streams this instance keeps, open or reopening")
            .register(registry);
        Gauge.builder(MaterializerMeters.PASSES_IN_FLIGHT, this.materializer, engine -> engine.summary().passesInFlight())
            .description("Passes running or queued now")
            .register(registry);
        Gauge.builder(MaterializerMeters.LAG, this.materializer, this.lag::seconds)
            .description("Age of the oldest change heard and not yet applied by a pass; 0 when caught up")
            .baseUnit("seconds")
            .register(registry);
    }

    private static double viewsIn(Materializer engine, ViewState state) {
        return engine.ownedViewCounts().getOrDefault(state, 0);
    }
}
