package dev.materializer.core.cluster;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.mongodb.MongoException;
import dev.materializer.core.EngineClock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The beats that decide which partitions this instance runs: a timer on the engine clock beats
 * every {@code partitionLease / 3}; when a beat shows the live set changed, partitions move
 * ({@link OwnedPartitions} holds the answer), and the partitions this instance gains are handed to
 * {@code onAcquired} so it catches them up (changes made while no one owned them were heard by no one).
 *
 * <p>Threads: the timer fires on the clock's thread and only hands the beat to this object's own
 * {@code materializer-heartbeat} thread, so a slow MongoDB never blocks the clock or the pass pool.
 * The beats ({@link #refresh}, on the start thread or the heartbeat thread) and leaving are
 * serialized by one lock; the timer's lifecycle by this object's monitor, which no MongoDB call
 * holds. {@code onAcquired} runs on the thread of the beat and must only queue work.
 */
public final class PartitionOwnership implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PartitionOwnership.class);

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final OwnedPartitions owned;

    private final String instanceId;

    private final Heartbeats heartbeats;

    private final EngineClock clock;

    private final Duration interval;

    private final Supplier<Set<String>> partitions;

    private final Consumer<Set<String>> onAcquired;

    private final AtomicBoolean beating = new AtomicBoolean();

    /** Serializes the beats, and a beat with leaving. */
    private final Object beatLock = new Object();

    private boolean ready;

    private volatile boolean closed;

    private @Nullable ExecutorService beats;

    private EngineClock.@Nullable Timer timer;

    /**
     * Creates the beats of one instance; nothing beats before {@link #refresh} or {@link #start}.
     * @param owned where the partitions this instance owns are published; its instance is this one
     * @param heartbeats where the instances beat
     * @param clock the clock of the heartbeat timer
     * @param partitionLease how long an instance counts as live without a heartbeat; beats come three times as often
     * @param partitions the partitions this instance knows of now
     * @param onAcquired what to do with partitions this instance gains
     */
    public PartitionOwnership(OwnedPartitions owned, Heartbeats heartbeats, EngineClock clock,
            Duration partitionLease, Supplier<Set<String>> partitions, Consumer<Set<String>> onAcquired) {
        this.owned = owned;
        this.instanceId = owned.instanceId();
        this.heartbeats = heartbeats;
        this.clock = clock;
        this.interval = partitionLease.dividedBy(3);
        this.partitions = partitions;
        this.onAcquired = onAcquired;
    }

    /**
     * Beats now on the calling thread, and moves partitions when the live set changed.
     * @throws MongoException when the heartbeats cannot be written or read
     */
    public void refresh() {
        synchronized (beatLock) {
            if (!closed) {
                beatAndMove();
            }
        }
    }

    private void beatAndMove() {
        Set<String> now = Set.copyOf(heartbeats.beat(ready));
        Set<String> before = owned.live();
        if (now.equals(before)) {
            return;
        }
        Set<String> gained = new TreeSet<>();
        Set<String> lost = new TreeSet<>();
        for (String partition : partitions.get()) {
            boolean had = owned.ownsAmong(partition, before);
            boolean has = owned.ownsAmong(partition, now);
            if (has && !had) {
                gained.add(partition);
            }
            else if (had && !has) {
                lost.add(partition);
            }
        }
        log.info("Live instances: {} (this is {})", new TreeSet<>(now), instanceId);
        if (!lost.isEmpty()) {
            log.info("Instance {} hands over {} partition(s): {}", instanceId, lost.size(), lost);
        }
        if (!gained.isEmpty()) {
            log.info("Instance {} takes over {} partition(s), which catch up: {}", instanceId, gained.size(), gained);
        }
        owned.publish(now, gained, onAcquired);
    }

    /**
     * Says this instance hears every change of its sources now, so the others may hand it
     * partitions, and beats at once.
     * @throws MongoException when the heartbeat cannot be written
     */
    public void ready() {
        synchronized (beatLock) {
            ready = true;
        }
        refresh();
    }

    /** Starts the heartbeat timer. */
    public synchronized void start() {
        if (closed || beats != null) {
            return;
        }
        beats = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "materializer-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        timer = clock.schedule(interval, this::tick);
    }

    /** On the clock's thread: arm the next tick, hand the beat over, never wait for MongoDB here. */
    private void tick() {
        ExecutorService executor;
        synchronized (this) {
            executor = beats;
            if (closed || executor == null) {
                return;
            }
            timer = clock.schedule(interval, this::tick);
        }
        if (!beating.compareAndSet(false, true)) {
            // The previous beat is still out: one at a time is enough.
            return;
        }
        try {
            executor.execute(this::beatInBackground);
        }
        catch (RejectedExecutionException ex) {
            beating.set(false);
        }
    }

    private void beatInBackground() {
        try {
            refresh();
        }
        catch (MongoException ex) {
            log.warn("Instance {} could not beat: {}; it keeps its partitions until a beat succeeds", instanceId,
                    ex.getMessage());
        }
        catch (RuntimeException ex) {
            log.error("The heartbeat of instance {} failed", instanceId, ex);
        }
        finally {
            beating.set(false);
        }
    }

    /** Stops beating without leaving, as a crash would: the others take over after the lease. */
    public void stopBeating() {
        ExecutorService executor;
        synchronized (this) {
            if (timer != null) {
                timer.cancel();
                timer = null;
            }
            executor = beats;
            beats = null;
            closed = true;
        }
        awaitBeatInFlight();
        if (executor != null) {
            executor.shutdown();
            try {
                executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Returns once a beat in flight has ended; after {@code closed} none starts. */
    private void awaitBeatInFlight() {
        synchronized (beatLock) {
            log.debug("Instance {} stopped beating", instanceId);
        }
    }

    /** Stops beating and leaves, so the others take this instance's partitions at their next beat. */
    @Override
    public void close() {
        boolean wasLive = owned.live() != null;
        stopBeating();
        if (!wasLive) {
            return;
        }
        try {
            // No beat runs any more (closed, the executor stopped), so none writes the document back.
            synchronized (beatLock) {
                heartbeats.leave();
            }
            log.info("Instance {} left: its partitions move to the others", instanceId);
        }
        catch (RuntimeException ex) {
            // A closed client throws IllegalStateException, not MongoException: the close goes on either way.
            log.warn("Instance {} could not leave ({}): its partitions move after the lease", instanceId,
                    ex.getMessage());
        }
    }
}
