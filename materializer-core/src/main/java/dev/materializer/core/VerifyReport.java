package dev.materializer.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What a comparison of a view's stored rows with a fresh run of its pipeline found, writing
 * nothing: the rows the target lacks, the rows it holds with other content, and the rows it holds
 * that the result no longer has.
 *
 * @param view the view
 * @param resultRows the rows of the fresh result
 * @param missing result rows the current generation lacks
 * @param changed result rows stored with other content
 * @param extra stored rows the result no longer has
 * @param duration how long the comparison took
 * @param error why the pipeline could not run (a problem of the view), when it could not; the
 *     counts are then zero
 */
public record VerifyReport(ViewKey view, long resultRows, long missing, long changed, long extra, Duration duration,
        @Nullable String error) {

    /** The rows that differ: what a pass would write or remove. */
    public long differences() {
        return missing + changed + extra;
    }

    /** Whether the target equals the result: it ran, and nothing differs. */
    public boolean inSync() {
        return error == null && differences() == 0;
    }
}
