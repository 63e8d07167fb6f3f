package dev.materializer.core.time;

import dev.materializer.core.EngineClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The real clock: {@link Clock#systemUTC()} and one daemon timer thread. Timer tasks run on that
 * thread; a task that throws is logged by the executor's default handling and does not stop
 * others.
 */
public final class SystemClock implements EngineClock, AutoCloseable {

    private final ScheduledThreadPoolExecutor timers;

    /** Creates the clock with its timer thread. */
    public SystemClock() {
        this.timers = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "materializer-timer");
            thread.setDaemon(true);
            return thread;
        });
        this.timers.setRemoveOnCancelPolicy(true);
        this.timers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public Instant now() {
        return Instant.now();
    }

    @Override
    public Timer schedule(Duration delay, Runnable task) {
        ScheduledFuture<?> future = timers.schedule(guarded(task), Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            }
            catch (RuntimeException ex) {
                org.slf4j.LoggerFactory.getLogger(SystemClock.class).error("A timer task failed", ex);
            }
        };
    }

    /** Stops the timer thread; pending timers do not run. */
    @Override
    public void close() {
        timers.shutdownNow();
    }
}
