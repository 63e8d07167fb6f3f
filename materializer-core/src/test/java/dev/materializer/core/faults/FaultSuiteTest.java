package dev.materializer.core.faults;

import java.util.stream.LongStream;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seeded fault suite: each scenario on each seed writes the sources at random, strikes its fault,
 * lets the sources go quiet, drives the engines until idle, and asks the {@link
 * dev.materializer.core.convergence.ConvergenceChecker} whether every view equals a fresh run of its
 * pipeline. A build runs {@value FaultSeeds#DEFAULT_SEEDS} seeds per scenario; a soak runs more:
 *
 * <pre>
 * ./mvnw -pl materializer-core -am verify -Dtest=FaultSuiteTest -Dmaterializer.faults.seeds=200 -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * and prints a table of scenarios by seeds. A soak of one scenario names it the way Surefire names a
 * method: {@code -Dtest='FaultSuiteTest#crashAndRestartWithANewIdWithinTheLease'}. A failure names
 * its scenario and seed, what the scenario did and what it found, and the command that replays it
 * ({@code -Dmaterializer.faults.seed=N}). {@code -Dmaterializer.faults.keep=true} keeps the timeline and
 * log of runs that converged too, to read what a scenario did.
 *
 * <p>A divergence is judged once the engines are given the time (see {@link FaultRun}): a
 * <em>lost mark</em> when every engine was quiescent and the views still diverged; a divergence
 * the engines were not shown quiescent for otherwise; and a run whose views converged once the
 * engines were quiescent passes as <em>converged late</em>. Every failed or late run keeps its
 * timeline and the engines' DEBUG log in {@code materializer-core/target/fault-runs/}, since a
 * timing-dependent finding may never replay.
 */
@Tag("faults")
@MongoTest(MongoKind.IN_PROCESS)
class FaultSuiteTest {

    private static final FaultTable TABLE = new FaultTable();

    static LongStream seeds() {
        return FaultSeeds.seeds();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void crashAndRestartWithTheSameIdWithinTheLease(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new CrashAndRestartWithinTheLease(true));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void crashAndRestartWithANewIdWithinTheLease(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new CrashAndRestartWithinTheLease(false));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void gracefulStopUnderLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new GracefulStopUnderLoad());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void connectionsCutAndRestored(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new ConnectionsCutAndRestored(false));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void connectionsCutThenAStopBeforeTheRetry(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new ConnectionsCutAndRestored(true));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void anInstanceDiesMidHandover(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new AnInstanceDiesMidHandover());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void giveWaysBeforeAStop(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new GiveWaysBeforeAStop());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void badViewsDuringLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new BadViewsDuringLoad());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aViewFailingOutsideMongoDb(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new AViewFailingOutsideMongoDb());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void oddPartitionValuesDuringLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new OddPartitionValuesDuringLoad(false));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void arrayPartitionValuesDuringLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new OddPartitionValuesDuringLoad(true));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void twoViewsOfOneTenantShareATarget(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new TwoViewsOfOneTenantShareATarget());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void viewsLeavingAndArrivingDuringLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new ViewLifecycleDuringLoad());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void viewIdsThatReadAlikeAsText(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new ViewIdsThatReadAlike());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void anUpstreamViewDeletedDuringLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new AnUpstreamViewDeletedDuringLoad());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aViewRetargetedDuringLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new AViewRetargetedDuringLoad());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aViewMovedToAnotherTenantDuringLoad(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new AViewMovedToAnotherTenantDuringLoad());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aViewRegisteredWhileAProjectedStreamRuns(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new AViewRegisteredWhileAProjectedStreamRuns());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void nestedFieldsReordered(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new NestedFieldsReordered());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void driftJudgedUnderStreamLag(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new DriftJudgedUnderStreamLag());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void differentialViews(long seed, TestMongo mongo, TestInfo test) {
        play(seed, mongo, test, new DifferentialViews());
    }

    @AfterAll
    static void printTable() {
        if (!TABLE.isEmpty()) {
            System.out.println(TABLE.render());
        }
    }

    private static void play(long seed, TestMongo mongo, TestInfo test, FaultScenario scenario) {
        String name = test.getTestMethod().orElseThrow().getName();
        FaultRun run = new FaultRun(name, seed, mongo);
        try {
            scenario.play(run);
            if (run.lateConvergence() != null) {
                TABLE.record(name, seed, FaultTable.Outcome.CONVERGED_LATE, 0);
                java.nio.file.Path kept = run.keepLog("converged late", run.lateConvergence().description());
                System.out.println("[" + name + ", seed " + seed + "] converged late; its timeline and log: " + kept);
            }
            else {
                TABLE.record(name, seed, FaultTable.Outcome.CONVERGED, 0);
                if (Boolean.getBoolean(FaultSeeds.KEEP_PROPERTY)) {
                    run.keepLog("converged", "kept as " + FaultSeeds.KEEP_PROPERTY + " asks");
                }
            }
        }
        catch (FaultFound found) {
            TABLE.record(name, seed, outcomeOf(found), found.divergences());
            run.keepLog(outcomeOf(found).toString(), found.getMessage());
            throw found;
        }
        catch (Exception | AssertionError ex) {
            TABLE.record(name, seed, FaultTable.Outcome.ERROR, 0);
            AssertionError failure = new AssertionError(FaultFound.message(run, "the scenario", "it failed: " + ex), ex);
            run.keepLog("error", failure.getMessage() + "\n" + stackTrace(ex));
            throw failure;
        }
        finally {
            run.close();
        }
    }

    private static FaultTable.Outcome outcomeOf(FaultFound found) {
        if (found.verdict() == FaultRun.Verdict.Kind.LOST_MARK) {
            // Views that diverge, or that never ran, with nothing left in the engines to run them.
            return FaultTable.Outcome.LOST_MARK;
        }
        return found.divergences() > 0 ? FaultTable.Outcome.DIVERGED : FaultTable.Outcome.WRONG_STATE;
    }

    private static String stackTrace(Throwable failure) {
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        return text.toString();
    }
}
