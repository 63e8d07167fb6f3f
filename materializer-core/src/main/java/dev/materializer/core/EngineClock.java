package dev.materializer.core;

import java.time.Duration;
import java.time.Instant;

/**
 * The engine's clock: what time it is on this host and when to run a timer. Every timer of the
 * engine (debounce, rewatch, backoff, grace) goes through it, so tests drive time by hand with
 * {@code ManualClock} instead of sleeping.
 *
 * <p>Timers run on the clock's own thread (or, for {@code ManualClock}, on the thread that advances
 * it); a task must be short and hand real work to an executor.
 */
public interface EngineClock {

    /** The time on this host. Times that fence other processes come from the server instead. */
    Instant now();

    /**
     * Runs the task once after the delay, unless cancelled first.
     * @param delay how long to wait, zero or more
     * @param task what to run
     * @return a handle that cancels the timer
     */
    Timer schedule(Duration delay, Runnable task);

    /** A timer that has not run yet can be cancelled; cancelling one that ran does nothing. */
    @FunctionalInterface
    interface Timer {

        /** Cancels the timer. */
        void cancel();
    }
}
