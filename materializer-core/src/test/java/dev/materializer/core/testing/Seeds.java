package dev.materializer.core.testing;

import java.util.stream.LongStream;

import org.jspecify.annotations.Nullable;
import org.opentest4j.TestAbortedException;

/**
 * Runs a property on many seeds, one case per seed, each drawn by a {@link Gen} made from it. The
 * seeds are 1 up to the property's count of cases, the same on every run, so a build never fails by
 * chance and a failure replays from its seed alone; to look further, run more seeds by hand.
 */
public final class Seeds {

    /** A system property: how many seeds every property runs on, for a longer search by hand. */
    public static final String COUNT = "materializer.properties.seeds";

    /** A system property: the one seed every property runs on, to replay a failure. */
    public static final String REPLAY = "materializer.properties.seed";

    private Seeds() {
    }

    /** The check of one case. */
    @FunctionalInterface
    public interface Property {

        /**
         * Draws a case and checks it.
         * @param gen the generator of this case's seed
         * @throws Exception when the check fails with one
         */
        void check(Gen gen) throws Exception;
    }

    /**
     * Checks a property on each of {@link #of} seeds, stopping at the first failure: rethrown with its
     * seed and how to replay it in front, since without shrinking the seed is what finds the case again.
     * @param cases the property's own count of cases
     * @param property the check of one case
     * @throws AssertionError when a case fails
     */
    public static void check(int cases, Property property) {
        check(cases, null, property);
    }

    /**
     * As {@link #check(int, Property)}, naming the test its replay command runs: for a test method of
     * an abstract contract, whose own frame names the contract rather than the class surefire runs.
     * @param cases the property's own count of cases
     * @param test the test to name in the replay command, as {@code Class#method}; null for the calling one
     * @param property the check of one case
     * @throws AssertionError when a case fails
     */
    public static void check(int cases, @Nullable String test, Property property) {
        for (long seed : of(cases).toArray()) {
            try {
                property.check(new Gen(seed));
            } catch (TestAbortedException aborted) {
                throw aborted;
            } catch (AssertionError | Exception failure) {
                // An assertion's message says it all; any other exception needs its type too.
                String what = failure instanceof AssertionError ? String.valueOf(failure.getMessage()) : failure.toString();
                throw new AssertionError(replayHint(seed, test == null ? callingTest() : test) + ": " + what, failure);
            }
        }
    }

    /**
     * The seeds a property runs on: the one {@value #REPLAY} names, else 1 to the count {@value #COUNT}
     * gives, else 1 to {@code cases}.
     * @param cases the property's own count of cases
     * @return the seeds
     */
    public static LongStream of(int cases) {
        String replay = System.getProperty(REPLAY);
        if (replay != null && !replay.isBlank()) {
            return LongStream.of(Long.parseLong(replay.strip()));
        }
        return LongStream.rangeClosed(1, Integer.getInteger(COUNT, cases));
    }

    /**
     * The seeds to measure a generator on, such as how often it gives each kind of case: 1 to
     * {@code cases}, or to the count {@value #COUNT} gives when that is more; a replay does not
     * change them, and too few cases would make the measure a matter of chance.
     * @param cases the count of the property the generator serves
     * @return the seeds
     */
    public static LongStream forCoverage(int cases) {
        return LongStream.rangeClosed(1, Math.max(cases, Integer.getInteger(COUNT, cases)));
    }

    /**
     * What a failure says about its seed.
     * @param seed the seed of the failing case
     * @param test the test to name in the replay command, as {@code Class#method}
     * @return the seed and the system properties that replay it
     */
    static String replayHint(long seed, String test) {
        return "seed=" + seed + " (replay with -D" + REPLAY + "=" + seed + " -Dtest='" + test + "')";
    }

    /** The test method that called {@link #check}: the first frame outside this class and its lambdas. */
    private static String callingTest() {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
            .walk(frames -> frames.filter(frame -> frame.getDeclaringClass() != Seeds.class).findFirst())
            .map(frame -> frame.getDeclaringClass().getSimpleName() + "#" + frame.getMethodName())
            .orElse("the test");
    }
}
