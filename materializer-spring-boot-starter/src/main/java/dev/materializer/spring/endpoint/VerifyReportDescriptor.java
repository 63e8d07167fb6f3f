package dev.materializer.spring.endpoint;

import dev.materializer.core.VerifyReport;
import org.jspecify.annotations.Nullable;

/**
 * The report of one comparison of a view's stored rows with a fresh run of its pipeline, in a
 * {@link VerifyDescriptor}.
 */
public final class VerifyReportDescriptor {

    private final VerifyReport report;

    VerifyReportDescriptor(VerifyReport report) {
        this.report = report;
    }

    /** @return rows of the fresh result */
    public long getResultRows() {
        return this.report.resultRows();
    }

    /** @return result rows the view's current generation lacks */
    public long getMissing() {
        return this.report.missing();
    }

    /** @return result rows stored with other content */
    public long getChanged() {
        return this.report.changed();
    }

    /** @return stored rows the result no longer has */
    public long getExtra() {
        return this.report.extra();
    }

    /** @return rows that differ: what a refresh would write or remove */
    public long getDifferences() {
        return this.report.differences();
    }

    /** @return whether the stored rows equal the result: the pipeline ran and nothing differs */
    public boolean isInSync() {
        return this.report.inSync();
    }

    /** @return how long the comparison took, in milliseconds */
    public long getDurationMillis() {
        return this.report.duration().toMillis();
    }

    /** @return why the pipeline could not run (the counts are then zero), if it could not */
    public @Nullable String getError() {
        return this.report.error();
    }
}
