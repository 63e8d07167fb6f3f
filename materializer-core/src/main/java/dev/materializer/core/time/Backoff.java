package dev.materializer.core.time;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * The wait before the next try after some failures: doubling from a first wait, capped, and spread
 * by a random part so that instances failing together (a primary that restarted under all of them)
 * do not all retry at the same moment.
 */
public final class Backoff {

    /** Uniform in {@code [0, 1)}, on the calling thread's own generator. */
    public static final DoubleSupplier RANDOM = () -> ThreadLocalRandom.current().nextDouble();

    private Backoff() {
    }

    /**
     * The wait after the given number of failures in a row, without jitter.
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

    /**
     * The wait after the given number of failures in a row, with jitter: between half of
     * {@link #after} and all of it, never below {@code first}. So the first retry still comes after
     * {@code first} (the rewatch of a stream that ended), every later one at a random point of the
     * upper half of its doubling wait, and no wait exceeds {@code max}.
     * @param failures failures so far, 1 or more (0 counts as 1)
     * @param first the wait after the first failure
     * @param max the longest wait
     * @param random uniform in {@code [0, 1)}: {@link #RANDOM}, or a fixed source in tests
     * @return the wait
     */
    public static Duration jittered(int failures, Duration first, Duration max, DoubleSupplier random) {
        Duration wait = after(failures, first, max);
        Duration floor = wait.dividedBy(2).compareTo(first) > 0 ? wait.dividedBy(2) : first;
        Duration spread = wait.minus(floor);
        if (spread.isZero() || spread.isNegative()) {
            return wait;
        }
        double share = Math.min(Math.max(random.getAsDouble(), 0), 1);
        return floor.plusNanos((long) (spread.toNanos() * share));
    }
}
