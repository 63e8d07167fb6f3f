package dev.materializer.core.faults;

import java.util.stream.LongStream;

/**
 * The seeds the fault suite runs: {@value #DEFAULT_SEEDS} per scenario in a build, as many as
 * {@code -Dmaterializer.faults.seeds=N} asks for a soak, or the one {@code -Dmaterializer.faults.seed=N}
 * names to replay a finding.
 */
final class FaultSeeds {

    static final String SEED_PROPERTY = "materializer.faults.seed";

    static final String SEEDS_PROPERTY = "materializer.faults.seeds";

    /** Set to true, the suite keeps the timeline and log of every run, not only of those that failed or were late. */
    static final String KEEP_PROPERTY = "materializer.faults.keep";

    static final int DEFAULT_SEEDS = 3;

    private FaultSeeds() {
    }

    /** The seeds of this run: 1..N, or the one asked for. */
    static LongStream seeds() {
        String one = System.getProperty(SEED_PROPERTY);
        if (one != null && !one.isBlank()) {
            return LongStream.of(Long.parseLong(one.trim()));
        }
        String count = System.getProperty(SEEDS_PROPERTY);
        int seeds = count == null || count.isBlank() ? DEFAULT_SEEDS : Integer.parseInt(count.trim());
        if (seeds < 1) {
            throw new IllegalArgumentException(SEEDS_PROPERTY + " must be at least 1, was " + seeds);
        }
        return LongStream.rangeClosed(1, seeds);
    }

    static String replayCommand(String scenario, long seed) {
        return "./mvnw -pl materializer-core -am test -Dtest='FaultSuiteTest#" + scenario + "' -D" + SEED_PROPERTY + "="
                + seed + " -Dsurefire.failIfNoSpecifiedTests=false";
    }
}
