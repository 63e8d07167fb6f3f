package dev.materializer.core;

/**
 * How far the catch-ups of this instance are, since it started. A catch-up runs every view of a
 * partition (at a start, for a partition taken over, after a stream lost its history); they take
 * turns, a few partitions at a time.
 *
 * @param total catch-ups asked for
 * @param done catch-ups ended
 * @param running catch-ups queued or running now
 * @param waiting catch-ups waiting for their turn
 */
public record CatchUpProgress(long total, long done, int running, int waiting) {

    /** No catch-up asked for yet. */
    public static final CatchUpProgress NONE = new CatchUpProgress(0, 0, 0, 0);
}
