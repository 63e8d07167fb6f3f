package dev.materializer.core.pass;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import dev.materializer.core.time.EngineClock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns changes into passes. A change marks {@code (partition, source)} dirty; the partition's pass
 * runs once the partition has been quiet for {@code debounce}, or at the latest {@code maxDelay}
 * after its first unpassed change, so a partition that never goes quiet is not starved (the seed's
 * plain trailing debounce could postpone it forever). A pass takes the dirty set; changes during
 * the pass make a new set and a new pass. Passes of a partition run in its lane, after its other
 * work.
 *
 * <p>Threads: {@link #markDirty} from the stream threads; timers fire on the clock's thread and only
 * queue work; passes run on the lanes' pool. All state here is guarded by {@code this}.
 */
public final class PassScheduler {

    private static final Logger log = LoggerFactory.getLogger(PassScheduler.class);

    /** Runs the pass of a partition over the sources that changed. */
    @FunctionalInterface
    public interface PassRunner {

        /**
         * Runs the pass.
         * @param partition the partition
         * @param dirty what changed since its last pass
         */
        void runPass(String partition, DirtySources dirty);
    }

    private final EngineClock clock;

    private final Duration debounce;

    private final Duration maxDelay;

    private final PartitionLanes lanes;

    private final PassRunner runner;

    private final Map<String, DirtySources> dirty = new HashMap<>();

    private final Map<String, Instant> firstMark = new HashMap<>();

    private final Map<String, EngineClock.Timer> timers = new HashMap<>();

    /** The sources each running or queued pass has taken, for checkpoints. */
    private final Map<String, DirtySources> taken = new HashMap<>();

    private boolean intake = true;

    /**
     * Creates the scheduler.
     * @param clock the clock of the debounce timers
     * @param debounce the quiet time before a pass
     * @param maxDelay the longest a change waits for its pass
     * @param lanes where passes run
     * @param runner what a pass does
     */
    public PassScheduler(EngineClock clock, Duration debounce, Duration maxDelay, PartitionLanes lanes,
            PassRunner runner) {
        this.clock = clock;
        this.debounce = debounce;
        this.maxDelay = maxDelay.compareTo(debounce) < 0 ? debounce : maxDelay;
        this.lanes = lanes;
        this.runner = runner;
    }

    /**
     * Marks a source of a partition dirty for every view reading it, and (re)arms the partition's
     * debounce timer.
     * @param partition the partition
     * @param source the source that changed
     */
    public void markDirty(String partition, String source) {
        mark(partition, source, null);
    }

    /**
     * Marks a source of a partition dirty for some of its views only (those whose source fields a
     * change touched), and (re)arms the partition's debounce timer.
     * @param partition the partition
     * @param source the source that changed
     * @param viewIds the views the change may affect
     */
    public void markDirty(String partition, String source, Collection<String> viewIds) {
        mark(partition, source, viewIds);
    }

    private synchronized void mark(String partition, String source, @Nullable Collection<String> viewIds) {
        if (!intake) {
            return;
        }
        DirtySources sources = dirty.computeIfAbsent(partition, key -> new DirtySources());
        if (viewIds == null) {
            sources.addAll(source);
        }
        else {
            sources.add(source, viewIds);
        }
        Instant now = clock.now();
        Instant first = firstMark.computeIfAbsent(partition, key -> now);
        Duration untilLatest = maxDelay.minus(Duration.between(first, now));
        Duration delay = untilLatest.compareTo(debounce) < 0 ? untilLatest : debounce;
        EngineClock.Timer previous = timers.remove(partition);
        if (previous != null) {
            previous.cancel();
        }
        timers.put(partition, clock.schedule(delay.isNegative() ? Duration.ZERO : delay, () -> fire(partition)));
    }

    private void fire(String partition) {
        synchronized (this) {
            timers.remove(partition);
            if (!intake || !dirty.containsKey(partition)) {
                return;
            }
        }
        lanes.submit(partition, () -> {
            DirtySources sources = take(partition);
            if (sources.isEmpty()) {
                return null;
            }
            try {
                runner.runPass(partition, sources);
            }
            catch (RuntimeException ex) {
                log.error("The pass of partition {} failed", partition, ex);
            }
            finally {
                release(partition);
            }
            return null;
        });
    }

    /** The pass takes the set: a change from now on goes into a new set and a new pass. */
    private synchronized DirtySources take(String partition) {
        DirtySources sources = dirty.remove(partition);
        firstMark.remove(partition);
        if (sources == null || !intake) {
            if (sources != null) {
                // Stopped: keep the marks for the last checkpoint.
                dirty.put(partition, sources);
            }
            return new DirtySources();
        }
        taken.put(partition, sources);
        return sources;
    }

    private synchronized void release(String partition) {
        taken.remove(partition);
    }

    /**
     * The partitions with unfinished work from a source: dirty, or taken by a pass not yet ended.
     * @param source the source
     * @return the partitions
     */
    public synchronized Set<String> pendingPartitions(String source) {
        Set<String> pending = new HashSet<>();
        dirty.forEach((partition, sources) -> {
            if (sources.contains(source)) {
                pending.add(partition);
            }
        });
        taken.forEach((partition, sources) -> {
            if (sources.contains(source)) {
                pending.add(partition);
            }
        });
        return pending;
    }

    /** Whether a partition has dirty sources waiting for a pass. */
    public synchronized boolean isDirty(String partition) {
        return dirty.containsKey(partition);
    }

    /**
     * Stops intake: no new marks, and waiting passes do not start. Passes already running finish.
     * The dirty marks stay, so the last checkpoint names their partitions and a restart runs them.
     */
    public synchronized void stopIntake() {
        intake = false;
        timers.values().forEach(EngineClock.Timer::cancel);
        timers.clear();
    }

    /** Whether changes are taken in. */
    public synchronized boolean intake() {
        return intake;
    }
}
