package dev.materializer.spring.observation;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewKey;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * One {@link Observation} per pass of one view: started when the engine says the pass starts
 * ({@link #onPassStarted}), stopped when it reports it ({@link #onPassFinished}), with the keys of
 * the custom {@link PassObservationConvention}, if any, else the registry's global one for
 * {@link PassObservationContext}, else {@link DefaultPassObservationConvention}. An errored pass
 * records its error on the observation.
 *
 * <p>Threads: the engine calls both on the thread of the pass (a pass runs on one thread of the
 * engine's pool, and a view's passes run one at a time, in its partition's lane), so the open
 * observations are held by view, not by thread. No scope is opened: the engine's pool threads are
 * shared by partitions, and a scope left open by a pass that ended without its report would leak
 * into the next. So the MongoDB commands of a pass are not children of its span. A pass that ended
 * without a report (the engine failed between the two calls) is stopped with an error when the
 * view's next pass starts, or when the engine stops. Thread-safe: a concurrent map.
 */
public final class MaterializerObservationListener implements MaterializerListener {

    private final Supplier<ObservationRegistry> registry;

    private static final PassObservationConvention DEFAULT = new DefaultPassObservationConvention();

    private final @Nullable PassObservationConvention convention;

    private final Map<ViewKey, Observation> open = new ConcurrentHashMap<>();

    /**
     * @param registry the registry, read at the first pass (it is built after the engine's listeners)
     * @param convention the name and keys of the observations, or null for the registry's global
     *     convention or the default
     */
    public MaterializerObservationListener(Supplier<ObservationRegistry> registry,
            @Nullable PassObservationConvention convention) {
        this.registry = registry;
        this.convention = convention;
    }

    @Override
    public void onPassStarted(ViewKey view) {
        ObservationRegistry observations = this.registry.get();
        if (observations.isNoop()) {
            return;
        }
        Observation observation = Observation.createNotStarted(this.convention, DEFAULT,
                () -> new PassObservationContext(view), observations);
        Observation previous = this.open.put(view, observation.start());
        if (previous != null) {
            abandon(previous);
        }
    }

    @Override
    public void onPassFinished(PassReport report) {
        Observation observation = this.open.remove(report.view());
        if (observation == null) {
            return;
        }
        if (observation.getContext() instanceof PassObservationContext context) {
            context.setReport(report);
        }
        if (report.outcome() == PassOutcome.ERRORED) {
            observation.error(new PassErroredException(report.error()));
        }
        observation.stop();
    }

    @Override
    public void onStateChanged(EngineState state, @Nullable String reason) {
        if (state == EngineState.STOPPED) {
            this.open.keySet().forEach(view -> {
                Observation observation = this.open.remove(view);
                if (observation != null) {
                    abandon(observation);
                }
            });
        }
    }

    /** The passes observed now; for tests. */
    int openObservations() {
        return this.open.size();
    }

    private static void abandon(Observation observation) {
        observation.error(new PassErroredException("the pass ended without a report"));
        observation.stop();
    }

    /** The error of an errored pass, as an observation records errors. */
    static final class PassErroredException extends RuntimeException {

        PassErroredException(@Nullable String message) {
            super((message != null) ? message : "the pass errored", null, false, false);
        }
    }
}
