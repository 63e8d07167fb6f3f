package dev.materializer.spring.endpoint;

import dev.materializer.core.PassReport;
import org.jspecify.annotations.Nullable;

import static dev.materializer.spring.endpoint.DescriptorText.text;

/** The report of one pass, in a {@link RefreshDescriptor}. */
public final class PassDescriptor {

    private final PassReport report;

    PassDescriptor(PassReport report) {
        this.report = report;
    }

    /** @return {@code changed}, {@code unchanged}, {@code errored} or {@code superseded} */
    public String getOutcome() {
        return text(this.report.outcome());
    }

    /** @return {@code transaction}, {@code generation} or {@code none} */
    public String getMode() {
        return text(this.report.mode());
    }

    /** @return rows inserted or replaced */
    public long getRowsWritten() {
        return this.report.rowsWritten();
    }

    /** @return rows removed */
    public long getRowsRemoved() {
        return this.report.rowsRemoved();
    }

    /** @return how long the pass took, in milliseconds */
    public long getDurationMillis() {
        return this.report.duration().toMillis();
    }

    /** @return why it failed or gave way, if it did */
    public @Nullable String getError() {
        return this.report.error();
    }
}
