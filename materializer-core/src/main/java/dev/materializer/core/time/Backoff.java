package dev.materializer.core.time;

import java.time.Duration;

/** The wait before the next try after some failures: doubling from a first wait, capped. */
public final class Backoff {

    private Backoff() {
    }

    /**
     * The wait after the given number of failures in a row.
     * @param failures failures so far, 1 or more (0 counts as 1)
     * @param first the wait after the first failure
     * @param max the longest wait
     * @return {@code first × 2^(failures-1)}, at most {@code max}
     */
    public static Duration after(int failures, Duration first, Duration max) {
        Duration wait = first;
        for (int i = 1; i < failures && wait.compareTo(max) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(max) > 0 ? max : wait;
    }
}
