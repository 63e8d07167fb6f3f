package dev.materializer.core.time;

import dev.materializer.core.EngineClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A clock that moves only when told, for deterministic tests: {@link #advance(Duration)} runs, on
 * the calling thread and in order of due time, every timer that falls due.
 *
 * <p>Thread-safe: timers may be scheduled from any thread.
 */
public final class ManualClock implements EngineClock {

    private final PriorityQueue<Entry> queue = new PriorityQueue<>(
            Comparator.comparing(Entry::due).thenComparingLong(Entry::sequence));

    private Instant now;

    private long sequence;

    /**
     * Creates a clock at the given time.
     * @param start the initial time
     */
    public ManualClock(Instant start) {
        this.now = start;
    }

    /** Creates a clock at 2026-01-01T00:00:00Z. */
    public ManualClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Override
    public synchronized Instant now() {
        return now;
    }

    @Override
    public synchronized Timer schedule(Duration delay, Runnable task) {
        Entry entry = new Entry(now.plus(delay.isNegative() ? Duration.ZERO : delay), sequence++, task);
        queue.add(entry);
        return () -> {
            synchronized (ManualClock.this) {
                queue.remove(entry);
            }
        };
    }

    /**
     * Moves the time forward and runs the timers that fall due, including those they schedule
     * within the step.
     * @param step how far to move
     */
    public void advance(Duration step) {
        Instant target;
        synchronized (this) {
            target = now.plus(step);
        }
        while (true) {
            Entry next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due().isAfter(target)) {
                    now = target;
                    return;
                }
                queue.poll();
                if (next.due().isAfter(now)) {
                    now = next.due();
                }
            }
            next.task().run();
        }
    }

    /** The number of timers waiting. */
    public synchronized int pendingTimers() {
        return queue.size();
    }

    /** The due times of the waiting timers, soonest first. */
    public synchronized List<Instant> pendingDueTimes() {
        List<Instant> due = new ArrayList<>();
        queue.stream().sorted(queue.comparator()).forEach(entry -> due.add(entry.due()));
        return due;
    }

    private record Entry(Instant due, long sequence, Runnable task) {
    }
}
