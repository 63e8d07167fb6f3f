package dev.materializer.benchmarks.scale;

import dev.materializer.core.MaterializerOptions;

/**
 * Passes queued by the first catch-up: every view ran before (its status says so) but the orders
 * stream has no checkpoint, so at its first open the engine catches up every partition. The tasks
 * in flight are sampled every millisecond from the start, through the first firing of the
 * debounce timers, and over a few more steps of the manual clock (each past the longest debounce,
 * 200 ms of real time apart), while the passes run; then the engine stops, its queue dropped: the
 * figure is the most work queued at once, not the time to finish the catch-up.
 */
final class CatchUpQueue {

    /**
     * @param maxInFlightAtStart the most tasks in flight from {@code start()} until it ran and drained
     *     (its rebalances; catch-up passes too, if they start without the clock)
     * @param maxInFlight the most tasks in flight once the clock moves (the catch-up's passes)
     * @param passesStarted views run before the engine was stopped
     */
    record Result(int views, int tenants, boolean started, int maxInFlightAtStart, int maxInFlight, long passesStarted,
            int steps) {
    }

    static final int STEPS = 6;

    private CatchUpQueue() {
    }

    static Result measure(MaterializerOptions base, int tenants, int viewsPerTenant) throws InterruptedException {
        Fleet fleet = new Fleet(tenants, viewsPerTenant, base);
        try (InProcessMongo mongo = new InProcessMongo()) {
            Setup.prepare(mongo, fleet, false);
            try (EngineRun run = new EngineRun(mongo, base)) {
                boolean started;
                int atStart;
                try (InFlightSampler sampler = new InFlightSampler(run.engine::inFlight)) {
                    started = run.startAndAwaitRunning() && run.drain();
                    atStart = sampler.max();
                }
                try (InFlightSampler sampler = new InFlightSampler(run.engine::inFlight)) {
                    for (int step = 0; step < STEPS && started; step++) {
                        run.clock.advance(run.pastMaxDelay());
                        sampler.note();
                        Meter.sleep(200);
                        sampler.note();
                    }
                    run.engine.stopIntake();
                    return new Result(fleet.views(), tenants, started, atStart, sampler.max(), run.listener.passesStarted.get(),
                            STEPS);
                }
            }
        }
    }
}
