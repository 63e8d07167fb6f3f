package dev.materializer.core.faults;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/**
 * What happened in one fault run, in order: the driver's notes, what each engine reported (changes
 * heard, passes and their outcomes, streams reopened, states), the live sets each node saw and the
 * checker's findings, each line with the real time since the run began and the engine time of the
 * run's clock. Kept in the run's log file when the run fails, so a finding can be read after the
 * fact instead of replayed (a timing-dependent one may never replay).
 *
 * <p>Bounded: past {@value #MAX_LINES} lines the oldest go. Thread-safe: engines report from
 * their own threads.
 */
final class Timeline {

    static final int MAX_LINES = 100_000;

    private final long start = System.nanoTime();

    private final Supplier<Instant> clock;

    private final Deque<String> lines = new ArrayDeque<>();

    private long dropped;

    Timeline(Supplier<Instant> clock) {
        this.clock = clock;
    }

    /** A line of what someone did or saw. */
    void add(String who, String what) {
        long micros = (System.nanoTime() - start) / 1_000;
        String line = String.format("%9.3fs  %s  %-8s %s", micros / 1_000_000.0, clock.get(), who, what);
        synchronized (this) {
            lines.addLast(line);
            if (lines.size() > MAX_LINES) {
                lines.removeFirst();
                dropped++;
            }
        }
    }

    synchronized List<String> lines() {
        List<String> copy = new ArrayList<>();
        if (dropped > 0) {
            copy.add("(" + dropped + " older line(s) dropped)");
        }
        copy.addAll(lines);
        return copy;
    }
}
