package dev.materializer.core.cluster;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.mongodb.MongoException;
import dev.materializer.core.EngineClock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions this instance runs: those whose {@link Rendezvous} owner among the live
 * instances is this one. A timer on the engine clock beats every {@code partitionLease / 3}; when a
 * beat shows the live set changed, partitions move, and the partitions this instance gains are
 * handed to {@code onAcquired} so it catches them up (changes made while no one owned them were
 * heard by no one). {@link #changes()} counts the changes of ownership, so a wait for freshness can
 * tell that a partition did not move while it looked.
 *
 * <p>Threads: {@link #owns} and {@link #changes()} from any thread (stream readers, pass workers,
 * waiting callers) read a volatile snapshot and an atomic count; the timer fires on the clock's
 * thread and only hands the beat to this object's own {@code materializer-heartbeat} thread, so a
 * slow MongoDB never blocks the clock or the pass pool.
 * The beats ({@link #refresh}, on the start thread or the heartbeat thread) and leaving are
 * serialized by one lock; the timer's lifecycle by this object's monitor, which no MongoDB call
 * holds. {@code onAcquired} runs on the thread of the beat and must only queue
 * work.
 */
public final class PartitionOwnership implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PartitionOwnership.class);

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final String instanceId;

    private final Heartbeats heartbeats;

    private final EngineClock clock;

    private final Duration interval;

    private final Supplier<Set<String>> partitions;

    private final Consumer<Set<String>> onAcquired;

    private final AtomicBoolean beating = new AtomicBoolean();

    private volatile @Nullable Set<String> live;

    /**
     * The partitions a beat is taking over, owned already while their catch-ups are marked and
     * before the new live set is published: a checkpoint that records the new live set then
     * always sees those catch-ups pending.
     */
    private volatile Set<String> gaining = Set.of();

    /**
     * Moves by one before and by one after every change of what {@link #owns} answers (odd while a
     * change is being published), so a reader that reads the same even count before and after its
     * look saw no change of ownership in between (see {@link #changes()}).
     */
    private final AtomicLong changes = new AtomicLong();

    /** Serializes the beats, and a beat with leaving. */
    private final Object beatLock = new Object();

    private boolean ready;

    private volatile boolean closed;

    private @Nullable ExecutorService beats;

    private EngineClock.@Nullable Timer timer;

    /**
     * Creates the ownership of one instance; nothing beats before {@link #refresh} or {@link #start}.
     * @param instanceId this instance
     * @param heartbeats where the instances beat
     * @param clock the clock of the heartbeat timer
     * @param partitionLease how long an instance counts as live without a heartbeat; beats come three times as often
     * @param partitions the partitions this instance knows of now
     * @param onAcquired what to do with partitions this instance gains
     */
    public PartitionOwnership(String instanceId, Heartbeats heartbeats, EngineClock clock, Duration partitionLease,
            Supplier<Set<String>> partitions, Consumer<Set<String>> onAcquired) {
        this.instanceId = instanceId;
        this.heartbeats = heartbeats;
        this.clock = clock;
        this.interval = partitionLease.dividedBy(3);
        this.partitions = partitions;
        this.onAcquired = onAcquired;
    }

    /**
     * Whether this instance runs the partition: true while the live set is unknown or holds this
     * instance alone, so one instance behaves as if there were no others.
     * @param partition the partition
     * @return whether this instance owns it
     */
    public boolean owns(String partition) {
        return gaining.contains(partition) || owns(partition, live);
    }

    /**
     * Whether an instance owns a partition among a set of live instances, by the rule every
     * instance applies: the rendezvous owner, or any instance while the set is unknown or holds at
     * most one. Checkpoints use it to tell which partitions their writer answered for.
     * @param instance the instance
     * @param partition the partition
     * @param among the live instances, empty when unknown
     * @return whether that instance owns the partition
     */
    public static boolean owner(String instance, String partition, Set<String> among) {
        return among.size() <= 1 || Rendezvous.owner(partition, among).equals(instance);
    }

    private boolean owns(String partition, @Nullable Set<String> among) {
        return among == null || among.size() <= 1 || Rendezvous.owner(partition, among).equals(instanceId);
    }

    /**
     * A count of the changes of ownership this instance has made: it moves by one when a change
     * begins and by one when it is published, so it is odd while a change is under way. A reader
     * that reads the same even count before and after looking at the work of a partition knows the
     * partition did not move in between — a pass it saw end could not have run while another
     * instance owned it. Any change of the live set counts, whichever partitions it moved.
     * @return the count
     */
    public long changes() {
        return changes.get();
    }

    /** The live instances at the last beat, this one included; empty before the first beat. */
    public Set<String> liveInstances() {
        Set<String> known = live;
        return known == null ? Set.of() : known;
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
        Set<String> before = live;
        if (now.equals(before)) {
            return;
        }
        Set<String> gained = new TreeSet<>();
        Set<String> lost = new TreeSet<>();
        for (String partition : partitions.get()) {
            boolean had = owns(partition, before);
            boolean has = owns(partition, now);
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
        // Odd from before the first write a reader of owns() may see until after the last.
        changes.incrementAndGet();
        try {
            if (!gained.isEmpty()) {
                log.info("Instance {} takes over {} partition(s), which catch up: {}", instanceId, gained.size(), gained);
                // Catch-ups are marked before the live set that gives these partitions away is published.
                gaining = Set.copyOf(gained);
                try {
                    onAcquired.accept(gained);
                }
                finally {
                    live = now;
                    gaining = Set.of();
                }
            }
            else {
                live = now;
            }
        }
        finally {
            changes.incrementAndGet();
        }
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
        catch (java.util.concurrent.RejectedExecutionException ex) {
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
        boolean wasLive = live != null;
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
