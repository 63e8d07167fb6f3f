package dev.materializer.benchmarks.scale;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.engine.ViewMaterializer;
import org.jspecify.annotations.Nullable;

/**
 * Passes queued by the first catch-up: every view ran before (its status says so) but the orders
 * stream has no checkpoint, so at its first open the engine catches up every partition. The tasks
 * in flight (rebalances and passes alike: what the lanes hold) are sampled every millisecond from
 * the start until the engine has drained or {@link #START_WINDOW} has passed, then over a few
 * steps of the manual clock (each past the longest debounce, 200 ms of real time apart); then the
 * engine stops, its queue dropped. The figure is the most work queued at once, not the time to
 * finish the catch-up.
 *
 * <p>Where the engine's snapshot reports its catch-ups (a {@code catchUp} component with
 * {@code running} and {@code waiting}), they are sampled too, every 50 ms (a snapshot copies every
 * view), so the catch-up passes let into the lanes can be told from the rebalances of the start.
 */
final class CatchUpQueue {

    /**
     * @param maxInFlightAtStart the most tasks in flight from {@code start()} until drained (or the window ended)
     * @param drainedAtStart whether the engine drained within the window, clock still
     * @param maxInFlight the most tasks in flight once the clock moves
     * @param maxCatchUpsRunning the most catch-ups the engine said were in its lanes at once; -1 when it does not say
     * @param maxCatchUpsWaiting the most catch-ups the engine said were waiting their turn; -1 when it does not say
     * @param passesStarted views run before the engine was stopped
     */
    record Result(int views, int tenants, boolean started, int maxInFlightAtStart, boolean drainedAtStart,
            int maxInFlight, int maxCatchUpsRunning, int maxCatchUpsWaiting, long passesStarted, int steps) {
    }

    static final int STEPS = 6;

    static final Duration START_WINDOW = Duration.ofSeconds(20);

    private CatchUpQueue() {
    }

    static Result measure(MaterializerOptions base, int tenants, int viewsPerTenant) throws InterruptedException {
        Fleet fleet = new Fleet(tenants, viewsPerTenant, base);
        try (InProcessMongo mongo = new InProcessMongo()) {
            Setup.prepare(mongo, fleet, false);
            try (EngineRun run = new EngineRun(mongo, base);
                    CatchUpCounts catchUps = new CatchUpCounts(run.engine)) {
                boolean started;
                boolean drained;
                int atStart;
                try (InFlightSampler sampler = new InFlightSampler(run.engine::inFlight)) {
                    started = run.startAndAwaitRunning();
                    drained = started && run.engine.drain(START_WINDOW);
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
                    return new Result(fleet.views(), tenants, started, atStart, drained, sampler.max(),
                            catchUps.maxRunning(), catchUps.maxWaiting(), run.listener.passesStarted.get(), STEPS);
                }
            }
        }
    }

    /** Samples the engine's own count of catch-ups, where its snapshot has one. */
    private static final class CatchUpCounts implements AutoCloseable {

        private final AtomicInteger maxRunning = new AtomicInteger(-1);

        private final AtomicInteger maxWaiting = new AtomicInteger(-1);

        private final Thread thread;

        private volatile boolean closed;

        CatchUpCounts(ViewMaterializer engine) {
            @Nullable RecordComponent catchUp = component(MaterializerSnapshot.class, "catchUp");
            this.thread = new Thread(() -> {
                while (!closed && catchUp != null) {
                    sample(engine, catchUp);
                    Meter.sleep(50);
                }
            }, "scale-report-catch-up-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private void sample(ViewMaterializer engine, RecordComponent catchUp) {
            try {
                Object progress = catchUp.getAccessor().invoke(engine.snapshot());
                if (progress == null) {
                    return;
                }
                @Nullable RecordComponent running = component(progress.getClass(), "running");
                @Nullable RecordComponent waiting = component(progress.getClass(), "waiting");
                if (running != null && running.getAccessor().invoke(progress) instanceof Integer count) {
                    maxRunning.accumulateAndGet(count, Math::max);
                }
                if (waiting != null && waiting.getAccessor().invoke(progress) instanceof Integer count) {
                    maxWaiting.accumulateAndGet(count, Math::max);
                }
            }
            catch (ReflectiveOperationException | RuntimeException ex) {
                // A snapshot while stopping, or a shape this sampler does not know: no figure.
            }
        }

        private static @Nullable RecordComponent component(Class<?> type, String name) {
            RecordComponent[] components = type.getRecordComponents();
            if (components != null) {
                for (RecordComponent component : components) {
                    if (component.getName().equals(name)) {
                        return component;
                    }
                }
            }
            return null;
        }

        int maxRunning() {
            return maxRunning.get();
        }

        int maxWaiting() {
            return maxWaiting.get();
        }

        @Override
        public void close() throws InterruptedException {
            closed = true;
            thread.join(1000);
        }
    }
}
