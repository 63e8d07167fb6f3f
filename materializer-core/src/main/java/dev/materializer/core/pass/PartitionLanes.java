package dev.materializer.core.pass;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.materializer.core.EngineClosedException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the work of each partition one task at a time, in order, and the work of different
 * partitions at the same time on a bounded pool of {@code maxConcurrent} threads. Counts the tasks
 * queued and running, so a host can drain them.
 *
 * <p>What it guarantees after {@link #close()}: no task starts — neither one queued in a lane
 * before the close, nor one submitted after it (a timer of a crashed engine may still submit),
 * not even in a lane whose turn already waits in the pool's queue, which the pool still runs after
 * its shutdown. Tasks running at the close finish. Every future ends: a task that does not run
 * ends with an {@link EngineClosedException} and is counted out, so drains end too; one submitted
 * after the close ends at once and is never counted.
 *
 * <p>Threads: {@link #submit} from any thread; tasks run on the pool's threads
 * ({@code materializer-pass-N}); a lane's queue is guarded by the lane's monitor.
 */
public final class PartitionLanes implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PartitionLanes.class);

    private final ExecutorService pool;

    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    private final AtomicInteger inFlight = new AtomicInteger();

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition idle = lock.newCondition();

    /** Set by {@link #close()}: a lane's turn that comes after it drops the lane's work instead of running it. */
    private volatile boolean closed;

    /**
     * Creates the lanes and their pool.
     * @param maxConcurrent how many partitions may run at once
     */
    public PartitionLanes(int maxConcurrent) {
        AtomicInteger threads = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(maxConcurrent, maxConcurrent, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "materializer-pass-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        ((ThreadPoolExecutor) pool).allowCoreThreadTimeOut(true);
    }

    /**
     * Queues work of a partition after the work of that partition queued before it.
     * @param partition the partition
     * @param work the work
     * @param <T> what the work gives
     * @return the work's result, when it ends; completes exceptionally with an
     *     {@link EngineClosedException} when the lanes close before the work starts, or closed before
     *     it was submitted
     */
    public <T> CompletableFuture<T> submit(String partition, Callable<T> work) {
        Task<T> task = new Task<>(partition, work);
        if (closed) {
            // Counted neither in nor out: it never enters a lane.
            task.result.completeExceptionally(task.closed());
            return task.result;
        }
        inFlight.incrementAndGet();
        boolean[] start = new boolean[1];
        // Every change to a lane happens inside compute, atomic per partition, so a lane that
        // empties and leaves the map can never run beside a new lane of the same partition.
        lanes.compute(partition, (key, lane) -> {
            Lane current = lane == null ? new Lane() : lane;
            current.queue.add(task);
            if (!current.running) {
                current.running = true;
                start[0] = true;
            }
            return current;
        });
        if (start[0]) {
            schedule(partition);
        }
        return task.result;
    }

    /**
     * Holds a partition's lane for work that runs on the caller's thread (a batched pass running the
     * views of several partitions): while held, no task of the lane starts; a turn that comes then
     * waits for the return. Only a lane running nothing, with at most {@code maxQueued} tasks waiting,
     * can be held, so held work never runs beside other work of the partition, nor ahead of more
     * than the tasks the caller knows of.
     * @param partition the partition
     * @param maxQueued how many tasks may wait in the lane (the pass the caller takes the marks of)
     * @return the hold, to close once the work ended; null when the lane is busy or closed
     */
    public @Nullable Held hold(String partition, int maxQueued) {
        boolean[] held = new boolean[1];
        lanes.compute(partition, (key, lane) -> {
            Lane current = lane == null ? new Lane() : lane;
            if (!closed && !current.executing && !current.held && current.queue.size() <= maxQueued) {
                current.held = true;
                held[0] = true;
            }
            return current.queue.isEmpty() && !current.running && !current.held ? null : current;
        });
        return held[0] ? new Held(partition) : null;
    }

    /** A lane held by {@link #hold}; closing it lets the lane's tasks run again. */
    public final class Held implements AutoCloseable {

        private final String partition;

        private boolean released;

        private Held(String partition) {
            this.partition = partition;
        }

        /** The partition whose lane is held. */
        public String partition() {
            return partition;
        }

        @Override
        public void close() {
            if (released) {
                return;
            }
            released = true;
            boolean[] resume = new boolean[1];
            lanes.computeIfPresent(partition, (key, lane) -> {
                lane.held = false;
                resume[0] = lane.turnWaiting;
                lane.turnWaiting = false;
                return lane.queue.isEmpty() && !lane.running ? null : lane;
            });
            if (resume[0]) {
                schedule(partition);
            }
        }
    }

    private void schedule(String partition) {
        try {
            pool.execute(() -> runNext(partition));
        }
        catch (RejectedExecutionException ex) {
            // Closed: the queued work will not run.
            drop(partition, true);
        }
    }

    /**
     * Ends the lane's queued work, which will not run: each future fails with the close as its
     * cause and is counted out, so drains end. The futures complete outside the lane's compute, as
     * their dependent actions run on this thread and may submit again.
     * @param remove whether the lane leaves the map (no task of it runs any more)
     */
    private void drop(String partition, boolean remove) {
        List<Task<?>> dropped = new ArrayList<>();
        lanes.computeIfPresent(partition, (key, lane) -> {
            drainInto(lane, dropped);
            return remove ? null : lane;
        });
        endClosed(dropped);
    }

    private static void drainInto(Lane lane, List<Task<?>> dropped) {
        for (Task<?> task = lane.queue.poll(); task != null; task = lane.queue.poll()) {
            dropped.add(task);
        }
    }

    private void endClosed(List<Task<?>> dropped) {
        for (Task<?> task : dropped) {
            try {
                task.result.completeExceptionally(task.closed());
            }
            finally {
                finished();
            }
        }
    }

    /** Runs one task of the lane, then gives the thread back so other partitions get their turn. */
    private void runNext(String partition) {
        List<Task<?>> dropped = new ArrayList<>();
        Task<?>[] next = new Task<?>[1];
        lanes.computeIfPresent(partition, (key, lane) -> {
            if (closed) {
                // A turn the pool still runs after its shutdown, or one that began as the close came:
                // what waits in the lane does not start. Read inside the compute, so no task submitted
                // after the close can slip past it.
                drainInto(lane, dropped);
                return null;
            }
            if (lane.held) {
                // Its turn waits for the hold's end, which schedules it again
                lane.turnWaiting = true;
                return lane;
            }
            next[0] = lane.queue.poll();
            if (next[0] == null) {
                lane.running = false;
                return null;
            }
            lane.executing = true;
            return lane;
        });
        if (!dropped.isEmpty()) {
            endClosed(dropped);
            return;
        }
        if (next[0] == null) {
            return;
        }
        try {
            next[0].run();
        }
        catch (RuntimeException ex) {
            log.error("A task of partition {} failed", partition, ex);
        }
        finally {
            lanes.computeIfPresent(partition, (key, lane) -> {
                lane.executing = false;
                return lane;
            });
        }
        schedule(partition);
    }

    private void finished() {
        if (inFlight.decrementAndGet() == 0) {
            lock.lock();
            try {
                idle.signalAll();
            }
            finally {
                lock.unlock();
            }
        }
    }

    /** The tasks queued or running. */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Waits until no task is queued or running, or the timeout passes.
     * @param timeout the longest wait
     * @return true when idle
     * @throws InterruptedException when interrupted
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (inFlight.get() > 0) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = idle.awaitNanos(remaining);
            }
            return true;
        }
        finally {
            lock.unlock();
        }
    }

    /**
     * Stops the pool: queued work that has not started does not run, and its futures end with an
     * {@link EngineClosedException}; running work finishes.
     */
    @Override
    public void close() {
        closed = true;
        pool.shutdown();
        for (String partition : lanes.keySet()) {
            // The lane stays while a task of it may still run: that task's end drops what follows it.
            drop(partition, false);
        }
    }

    /** One piece of work and the future of its result. */
    private final class Task<T> implements Runnable {

        private final String partition;

        private final Callable<T> work;

        private final CompletableFuture<T> result = new CompletableFuture<>();

        Task(String partition, Callable<T> work) {
            this.partition = partition;
            this.work = work;
        }

        @Override
        public void run() {
            try {
                result.complete(work.call());
            }
            catch (Throwable ex) {
                if (ex instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                result.completeExceptionally(ex);
            }
            finally {
                finished();
            }
        }

        EngineClosedException closed() {
            return new EngineClosedException("the engine closed before this work of partition '" + partition
                    + "' ran; it did not start");
        }
    }

    /** The queue of one partition; touched only inside {@code lanes.compute*} for its key. */
    private static final class Lane {

        private final Queue<Task<?>> queue = new ArrayDeque<>();

        /** A turn of the lane is in the pool (queued or running): set by a submit, cleared by the turn that finds nothing. */
        private boolean running;

        /** A task of the lane runs now. */
        private boolean executing;

        /** Held by {@link Held}: no task starts until it is let go. */
        private boolean held;

        /** A turn came while held: the hold's end schedules it. */
        private boolean turnWaiting;
    }
}
