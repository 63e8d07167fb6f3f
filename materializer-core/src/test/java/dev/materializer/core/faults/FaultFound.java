package dev.materializer.core.faults;

import java.util.Set;

import dev.materializer.core.convergence.ConvergenceReport;
import org.jspecify.annotations.Nullable;

/**
 * A scenario found the engine wrong: the views did not converge, or a view's state is not what it
 * must be. The message names the scenario and the seed, says what happened and what was found,
 * and how to replay it.
 */
final class FaultFound extends AssertionError {

    private static final long serialVersionUID = 1L;

    private final int divergences;

    private final FaultRun.Verdict.@Nullable Kind verdict;

    FaultFound(FaultRun run, String phase, String what, ConvergenceReport report, Set<String> mustConverge,
            Set<String> mayBeLeftOut, FaultRun.Verdict.Kind verdict) {
        super(message(run, phase, what + describe(report, mustConverge, mayBeLeftOut)));
        this.divergences = report.divergences().size();
        this.verdict = verdict;
    }

    FaultFound(FaultRun run, String phase, String what) {
        super(message(run, phase, what));
        this.divergences = 0;
        this.verdict = null;
    }

    /** How many views diverged; 0 when the finding is of another kind. */
    int divergences() {
        return divergences;
    }

    /** Whether the engines were quiescent when the views diverged (a lost mark); null for other findings. */
    FaultRun.Verdict.@Nullable Kind verdict() {
        return verdict;
    }

    private static String describe(ConvergenceReport report, Set<String> mustConverge, Set<String> mayBeLeftOut) {
        Set<String> left = FaultRun.unexpectedlyLeftOut(report, mustConverge, mayBeLeftOut);
        return ":\n" + report.describe() + (left.isEmpty() ? "" : "\n  views that should have been checked: " + left);
    }

    static String message(FaultRun run, String phase, @Nullable String what) {
        return "[" + run.scenario + ", seed " + run.seed + "] after " + phase + ": " + what
                + "\nnodes: " + run.describeNodes()
                + "\nwhat the scenario did: " + String.join(" | ", run.log())
                + "\nreplay: " + FaultSeeds.replayCommand(run.scenario, run.seed)
                + "\ntimeline and DEBUG log: " + run.logFile().toAbsolutePath();
    }
}
