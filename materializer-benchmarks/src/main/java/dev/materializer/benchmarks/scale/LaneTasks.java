package dev.materializer.benchmarks.scale;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.engine.EngineDiagnostics;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.stream.StreamListener;

/**
 * Lane tasks queued for one partition during one long pass: the pass of tenant 0 is held (the
 * listener's {@code onPassStarted} waits on a latch), and meanwhile tenant 0 is marked again and
 * again, the manual clock moved past the longest debounce after each mark so that each mark's
 * timer fires. The engine's tasks in flight (queued or running; tenant 0 is the only partition
 * with work) are read after each step and by a sampler every millisecond; the maximum is the figure.
 */
final class LaneTasks {

    record Result(int views, int marks, boolean completed, int maxInFlight, long passesAfterRelease, String error) {
    }

    private LaneTasks() {
    }

    static Result measure(MaterializerOptions base, int tenants, int viewsPerTenant, int marks)
            throws InterruptedException {
        Fleet fleet = new Fleet(tenants, viewsPerTenant, base);
        try (InProcessMongo mongo = new InProcessMongo()) {
            Setup.prepare(mongo, fleet, true);
            try (EngineRun run = new EngineRun(mongo, base)) {
                String held = Fleet.tenant(0);
                CountDownLatch entered = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                AtomicBoolean holding = new AtomicBoolean();
                run.listener.onPassStart(view -> {
                    if (view.partition().equals(held) && holding.compareAndSet(false, true)) {
                        entered.countDown();
                        try {
                            release.await(EngineRun.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
                if (!run.startAndAwaitRunning() || !run.drain()) {
                    return new Result(fleet.views(), 0, false, 0, 0, "the engine did not start and drain");
                }
                StreamListener feed;
                try {
                    feed = EngineDiagnostics.sourceFeed(run.engine);
                }
                catch (IllegalStateException ex) {
                    return new Result(fleet.views(), 0, false, 0, 0, ex.getMessage());
                }
                SourceChange[] events = Fleet.events(held, base.partitionField(), marks + 1);
                int max;
                try (InFlightSampler sampler = new InFlightSampler(run.engine::inFlight)) {
                    feed.onChange(Fleet.SOURCE, events[0]);
                    run.clock.advance(run.pastMaxDelay());
                    if (!entered.await(60, TimeUnit.SECONDS)) {
                        release.countDown();
                        return new Result(fleet.views(), 0, false, sampler.max(), 0, "the pass of " + held + " never started");
                    }
                    long passesBefore = run.listener.passesStarted.get();
                    for (int mark = 1; mark <= marks; mark++) {
                        feed.onChange(Fleet.SOURCE, events[mark]);
                        run.clock.advance(run.pastMaxDelay());
                        sampler.note();
                    }
                    max = sampler.max();
                    release.countDown();
                    boolean drained = run.drain();
                    run.clock.advance(run.pastMaxDelay());
                    drained = drained && run.drain();
                    return new Result(fleet.views(), marks, drained, max,
                            run.listener.passesStarted.get() - passesBefore, "");
                }
                finally {
                    release.countDown();
                }
            }
        }
    }
}
