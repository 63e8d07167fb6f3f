package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each scenario found on each seed, printed after the suite as a table: one row per scenario,
 * with the seeds that converged, that found a divergence, that found another wrong state, and that
 * failed otherwise.
 *
 * <p>Thread-safe: JUnit may run tests in parallel.
 */
final class FaultTable {

    /** What one run found. */
    enum Outcome {
        CONVERGED, DIVERGED, WRONG_STATE, ERROR
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
        String format = "%-" + width + "s  %4s  %9s  %8s  %11s  %5s  %s%n";
        text.append(String.format(format, "scenario", "runs", "converged", "diverged", "wrong state", "error",
                "seeds found wrong (views diverged)"));
        for (Map.Entry<String, Map<Long, Entry>> scenario : runs.entrySet()) {
            int[] counts = new int[Outcome.values().length];
            List<String> found = new ArrayList<>();
            scenario.getValue().forEach((seed, entry) -> {
                counts[entry.outcome().ordinal()]++;
                switch (entry.outcome()) {
                    case DIVERGED -> found.add(seed + " (" + entry.divergences() + ")");
                    case WRONG_STATE -> found.add(seed + " (state)");
                    case ERROR -> found.add(seed + " (error)");
                    default -> {
                    }
                }
            });
            text.append(String.format(format, scenario.getKey(), scenario.getValue().size(),
                    counts[Outcome.CONVERGED.ordinal()], counts[Outcome.DIVERGED.ordinal()],
                    counts[Outcome.WRONG_STATE.ordinal()], counts[Outcome.ERROR.ordinal()],
                    found.isEmpty() ? "-" : String.join(", ", found)));
        }
        return text.toString();
    }
}
