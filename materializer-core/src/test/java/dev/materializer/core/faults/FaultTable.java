package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each scenario found on each seed, printed after the suite as a table: one row per scenario,
 * with the seeds that converged (in time, or late once the engines were quiescent), that found a
 * lost mark (views diverged while every engine was quiescent), that found a divergence the engines
 * were not shown quiescent for, that found another wrong state, and that failed otherwise.
 *
 * <p>Thread-safe: JUnit may run tests in parallel.
 */
final class FaultTable {

    /** What one run found. */
    enum Outcome {
        /** The views converged. */
        CONVERGED,
        /** The quiet of the drive misjudged a slow engine: the views converged once it was quiescent. */
        CONVERGED_LATE,
        /** The views diverged while every engine was quiescent: a lost mark. */
        LOST_MARK,
        /** The views diverged and the engines were not shown quiescent: no evidence of a lost mark. */
        DIVERGED,
        WRONG_STATE,
        ERROR
    }

    private record Entry(Outcome outcome, int divergences) {
    }

    private final Map<String, Map<Long, Entry>> runs = new TreeMap<>();

    synchronized void record(String scenario, long seed, Outcome outcome, int divergences) {
        runs.computeIfAbsent(scenario, key -> new TreeMap<>()).put(seed, new Entry(outcome, divergences));
    }

    synchronized boolean isEmpty() {
        return runs.isEmpty();
    }

    synchronized String render() {
        int width = Math.max("scenario".length(), runs.keySet().stream().mapToInt(String::length).max().orElse(0));
        StringBuilder text = new StringBuilder("\nFault suite: scenarios x seeds\n");
        String format = "%-" + width + "s  %4s  %9s  %4s  %9s  %8s  %11s  %5s  %s%n";
        text.append(String.format(format, "scenario", "runs", "converged", "late", "lost mark", "diverged",
                "wrong state", "error", "seeds found wrong (views diverged), late"));
        for (Map.Entry<String, Map<Long, Entry>> scenario : runs.entrySet()) {
            int[] counts = new int[Outcome.values().length];
            List<String> found = new ArrayList<>();
            scenario.getValue().forEach((seed, entry) -> {
                counts[entry.outcome().ordinal()]++;
                switch (entry.outcome()) {
                    case CONVERGED_LATE -> found.add(seed + " (late)");
                    case LOST_MARK -> found.add(seed + " (lost mark, " + entry.divergences() + ")");
                    case DIVERGED -> found.add(seed + " (" + entry.divergences() + ")");
                    case WRONG_STATE -> found.add(seed + " (state)");
                    case ERROR -> found.add(seed + " (error)");
                    default -> {
                    }
                }
            });
            text.append(String.format(format, scenario.getKey(), scenario.getValue().size(),
                    counts[Outcome.CONVERGED.ordinal()], counts[Outcome.CONVERGED_LATE.ordinal()],
                    counts[Outcome.LOST_MARK.ordinal()], counts[Outcome.DIVERGED.ordinal()],
                    counts[Outcome.WRONG_STATE.ordinal()], counts[Outcome.ERROR.ordinal()],
                    found.isEmpty() ? "-" : String.join(", ", found)));
        }
        return text.toString();
    }
}
