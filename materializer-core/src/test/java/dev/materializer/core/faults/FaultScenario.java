package dev.materializer.core.faults;

/**
 * One fault, played on one seed: sources written at random, views defined, engines started, the
 * fault, quiet sources, then the convergence of every view. A scenario throws {@link FaultFound}
 * when the engine is wrong; any other exception is a failure of the run.
 */
@FunctionalInterface
interface FaultScenario {

    void play(FaultRun run) throws Exception;
}
