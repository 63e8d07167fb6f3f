package dev.materializer.core;

import java.time.Duration;

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
 * @param scope whether it recomputed the whole view or the rows of some keys
 * @param scopeNote for a key-scoped pass, which keys ("2 keys of customer"); for a whole one, why it
 *     was not key-scoped, when it could have been (say "the old key of a deleted document is
 *     unknown"); null otherwise
 */
public record PassReport(ViewKey view, WriteMode mode, PassOutcome outcome, long rowsWritten, long rowsRemoved,
        Duration duration, @Nullable String error, PassScope scope, @Nullable String scopeNote) {

    /**
     * The report of a pass over the whole view.
     * @param view the view
     * @param mode how it wrote
     * @param outcome how it ended
     * @param rowsWritten rows inserted or replaced
     * @param rowsRemoved rows removed from the generation readers read
     * @param duration how long it took
     * @param error why it failed, or why it gave way
     */
    public PassReport(ViewKey view, WriteMode mode, PassOutcome outcome, long rowsWritten, long rowsRemoved,
            Duration duration, @Nullable String error) {
        this(view, mode, outcome, rowsWritten, rowsRemoved, duration, error, PassScope.FULL, null);
    }

    /**
     * This report with what the pass recomputed.
     * @param scope whole or key-scoped
     * @param note which keys, or why not key-scoped
     * @return a new report
     */
    public PassReport scoped(PassScope scope, @Nullable String note) {
        return new PassReport(view, mode, outcome, rowsWritten, rowsRemoved, duration, error, scope, note);
    }
}
