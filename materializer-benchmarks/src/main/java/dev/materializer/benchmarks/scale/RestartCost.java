package dev.materializer.benchmarks.scale;

import java.util.Map;

/**
 * A restart that runs nothing: every view document says it ran with its current definition, and the
 * orders stream has a checkpoint of this instance that answers for every partition, so the engine
 * has nothing to run. Measured from {@code start()} until it runs and is idle: its rebalances
 * drained, then the clock moved past the longest debounce (so any mark it made would fire) and
 * drained again. Counts the passes run (should be 0), the commands sent, and the most tasks in flight
 * at once (the rebalances the start queues).
 */
final class RestartCost {

    record Result(int views, boolean completed, double wallSeconds, double processCpuSeconds,
            double engineCpuSeconds, long passesRun, int maxInFlight, Map<String, Long> commands) {
    }

    private RestartCost() {
    }

    static Result measure(EngineRun run, int views) throws InterruptedException {
        try (EngineThreadsCpu engineCpu = new EngineThreadsCpu();
                InFlightSampler inFlight = new InFlightSampler(run.engine::inFlight)) {
            long engineBefore = engineCpu.totalNanos();
            Map<String, Long> commandsBefore = run.commands.snapshot();
            long cpuBefore = Meter.processCpuNanos();
            long wallBefore = System.nanoTime();
            boolean completed = run.startAndAwaitRunning() && run.drain();
            run.clock.advance(run.pastMaxDelay());
            completed = completed && run.drain();
            long wall = System.nanoTime() - wallBefore;
            long cpu = Meter.processCpuNanos() - cpuBefore;
            long engine = engineCpu.totalNanos() - engineBefore;
            return new Result(views, completed, wall / 1e9, cpu / 1e9, engine / 1e9,
                    run.listener.passesStarted.get(), inFlight.max(),
                    CommandCounter.between(commandsBefore, run.commands.snapshot()));
        }
    }
}
