package dev.materializer.core;

import java.time.Duration;

import dev.materializer.core.view.ViewKey;
import org.jspecify.annotations.Nullable;

/**
 * What one pass of one view did.
 *
 * @param view the view
 * @param mode how it wrote
 * @param outcome how it ended
 * @param rowsWritten rows inserted or replaced
 * @param rowsRemoved rows removed from the generation readers read
 * @param duration how long it took
 * @param error why it failed, for {@link PassOutcome#ERRORED}, or why it gave way
 */
public record PassReport(ViewKey view, WriteMode mode, PassOutcome outcome, long rowsWritten, long rowsRemoved,
        Duration duration, @Nullable String error) {
}
