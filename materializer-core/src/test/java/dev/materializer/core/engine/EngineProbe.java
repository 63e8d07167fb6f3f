package dev.materializer.core.engine;

import dev.materializer.core.EngineState;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.materializer.core.freshness.FreshnessWait;
import dev.materializer.core.pass.PassScheduler;

/** What tests in other packages may see of an engine's internals. */
public final class EngineProbe {

    private EngineProbe() {
    }

    /**
     * The live instances an engine saw at its last heartbeat.
     * @param engine the engine
     * @return the instances, itself included; empty before its first heartbeat
     */
    public static Set<String> liveInstances(ViewMaterializer engine) {
        return engine.owned().liveInstances();
    }

    /**
     * Beats now, on the calling thread: the engine reads the heartbeats and moves partitions when the
     * live set changed (a test writes or removes the heartbeat of an instance that does not run).
     * @param engine the engine
     */
    public static void beat(ViewMaterializer engine) {
        engine.ownership().refresh();
    }

    /**
     * A wait for a view's freshness on the engine's own bookkeeping, which the test looks at when it
     * chooses (see {@link FreshnessWait#look()}).
     * @param engine the engine
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @param sinceNanos when the wait began ({@link System#nanoTime()}): changes acknowledged before count
     * @return the wait
     */
    public static FreshnessWait freshnessWait(ViewMaterializer engine, String partition, String id, long sinceNanos) {
        return new FreshnessWait(engine.running().freshnessProbe(), partition, id, sinceNanos, null);
    }

    /**
     * Holds the stream of a collection (a source, or the views collection) before it hands over its
     * next event, as a stream that lags would, until the hold is released or closed.
     * @param engine the engine
     * @param collection the collection
     * @return the hold
     */
    public static HeldStream holdHandOver(ViewMaterializer engine, String collection) {
        return new HeldStream(engine.handOvers().hold(collection));
    }

    /** A stream held before it hands over an event. */
    public static final class HeldStream implements AutoCloseable {

        private final HandOverGate.Hold hold;

        private HeldStream(HandOverGate.Hold hold) {
            this.hold = hold;
        }

        /**
         * Waits until the stream holds an event.
         * @throws AssertionError when none came within ten seconds
         */
        public void awaitHeld() throws InterruptedException {
            if (!hold.awaitHeld(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the stream held no event");
            }
        }

        /** Lets the stream hand the event over, and every later one. */
        public void release() {
            hold.release();
        }

        @Override
        public void close() {
            hold.release();
        }
    }

    /**
     * Occupies the lane of a partition with a task that waits until closed: the partition's passes,
     * catch-ups and rebalances queue behind it. Returns once the task runs.
     * @param engine the engine
     * @param partition the partition
     * @return what ends the task
     */
    public static AutoCloseable occupyLane(ViewMaterializer engine, String partition) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        engine.running().lanes().submit(partition, () -> {
            running.countDown();
            done.await();
            return null;
        });
        if (!running.await(10, TimeUnit.SECONDS)) {
            done.countDown();
            throw new AssertionError("the lane of partition " + partition + " did not run the task");
        }
        return done::countDown;
    }

    /**
     * Stops an engine as a killed process would: no last checkpoint, no leave, queued work dropped.
     * @param engine the engine
     */
    public static void crash(ViewMaterializer engine) {
        engine.crash();
    }

    /**
     * The document paths the images of a source stream's open cursor carry.
     * @param engine the engine
     * @param collection the source
     * @return the paths, or null for whole images (a server that splits large events) or no stream
     */
    public static @org.jspecify.annotations.Nullable Set<String> imagePaths(ViewMaterializer engine, String collection) {
        return engine.running().sourceFeed().imagePaths(collection);
    }

    /**
     * Whether an engine has nothing left to do, as far as it knows: see {@link Quiescence}.
     * @param engine the engine
     * @param streamsSince the moment ({@link System#nanoTime()}) every stream must have heard up to:
     *     take it after the last write that matters, then wait for the streams to poll past it
     * @return the picture
     */
    public static Quiescence quiescence(ViewMaterializer engine, long streamsSince) {
        // Streams first: what they hear after this may mark more, which the backlog read next then shows.
        List<String> behind = engine.running().streamsBehind(streamsSince);
        PassScheduler.Backlog backlog = engine.running().scheduler().backlog();
        return new Quiescence(engine.snapshot().state(), engine.inFlight(), backlog, behind);
    }

    /**
     * An engine's work at one moment. It is quiescent when it runs, no task is queued or running in
     * its lanes, its scheduler holds no mark (dirty or taken), no queued pass, no armed debounce or
     * retry timer and no catch-up turn, and every stream heard every event committed before the
     * moment asked for. A view that still differs from its pipeline then is a lost mark: nothing
     * in the engine will ever run it (short of the reconciler or a later change of its partition).
     *
     * @param state the engine's state
     * @param tasksInFlight tasks queued or running in the lanes
     * @param backlog what the scheduler holds
     * @param streamsBehind the watched collections whose stream has not heard up to the moment
     */
    public record Quiescence(EngineState state, int tasksInFlight, PassScheduler.Backlog backlog,
            List<String> streamsBehind) {

        /** Whether nothing is left to do. */
        public boolean quiescent() {
            return state == EngineState.RUNNING && tasksInFlight == 0 && backlog.isEmpty() && streamsBehind.isEmpty();
        }

        /**
         * Whether all that is left are stuck marks ({@link PassScheduler.Backlog#stuck()}): dirty
         * partitions with nothing armed, queued or running to run them, every stream caught up. Seen
         * after the timers had their time, those marks wait for a change that may never come: lost.
         */
        public boolean stuckOnly() {
            PassScheduler.Backlog work = backlog;
            return state == EngineState.RUNNING && tasksInFlight == 0 && streamsBehind.isEmpty()
                    && !work.dirty().isEmpty() && work.stuck().equals(new java.util.TreeSet<>(work.dirty()));
        }

        @Override
        public String toString() {
            return (quiescent() ? "quiescent" : "not quiescent") + " (" + state + ", " + tasksInFlight
                    + " task(s) in flight, scheduler: " + backlog + ", streams behind: "
                    + (streamsBehind.isEmpty() ? "none" : streamsBehind) + ")";
        }
    }
}
