package dev.materializer.spring.observation;

import dev.materializer.core.PassReport;
import dev.materializer.core.ViewKey;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** What an observation of one pass carries: the view, and the report once the pass ended. */
public final class PassObservationContext extends Observation.Context {

    private final ViewKey view;

    private volatile @Nullable PassReport report;

    /** @param view the view whose pass it observes */
    public PassObservationContext(ViewKey view) {
        this.view = view;
    }

    /** @return the view */
    public ViewKey getView() {
        return this.view;
    }

    /** @return the report of the pass, once it ended; null while it runs or when it ended without one */
    public @Nullable PassReport getReport() {
        return this.report;
    }

    void setReport(PassReport report) {
        this.report = report;
    }
}
