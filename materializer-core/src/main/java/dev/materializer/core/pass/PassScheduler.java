package dev.materializer.core.pass;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;

import dev.materializer.core.CatchUpProgress;
import dev.materializer.core.EngineClock;
import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.time.Durations;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns changes into passes. A change marks {@code (partition, source)} dirty; the partition's pass
 * runs once the partition has been quiet for {@code debounce}, or at the latest {@code maxDelay}
 * after its first unpassed change, so a partition that never goes quiet is not starved. A pass
 * takes the dirty set; changes during the pass make a new set and a new pass. Passes of a
 * partition run in its lane, after its other work; at most one pass of a partition waits in its
 * lane at a time, so marks merge into the waiting pass instead of queueing a task each.
 *
 * <p>What it guarantees, for the checkpoints: a mark is never dropped. It stays dirty until a pass
 * takes it, then "taken" until that pass ends; what the pass could not finish comes back dirty as a
 * retry before the pass lets go of it, and so does everything of a pass that threw. After
 * {@link #stopIntake()} marks are still recorded (no pass starts), so the last checkpoint names
 * them. {@link #pendingPartitions} is therefore, at any moment, a superset of the partitions whose
 * marked changes are not yet applied.
 *
 * <p>Threads: marks from the stream threads and the heartbeat thread; timers fire on the clock's
 * thread and only queue work; passes run on the lanes' pool. All state here is guarded by
 * {@code this}; a pass works on its own copy of the marks it took.
 */
public final class PassScheduler {

    private static final Logger log = LoggerFactory.getLogger(PassScheduler.class);

    /** Runs the pass of a partition over the sources that changed. */
    @FunctionalInterface
    public interface PassRunner {

        /**
         * Runs the pass.
         * @param partition the partition
         * @param dirty what changed since its last pass; the runner may add to it
         * @return what must run again later (views that gave way or met a failure of the
         *     deployment); empty when the pass applied everything
         */
        DirtySources runPass(String partition, DirtySources dirty);

        /**
         * Runs the pass, and says whether it ran the views here. A runner that leaves the marks to
         * another instance (the partition is not this one's any more) applied none of them, and its
         * pass must not count as one that did. By default every pass runs here.
         * @param partition the partition
         * @param dirty what changed since its last pass; the runner may add to it
         * @return whether it ran, and what must run again later
         */
        default Ran run(String partition, DirtySources dirty) {
            return Ran.here(runPass(partition, dirty));
        }

        /**
         * Runs the pass, and may run the waiting passes of other partitions with it (a batch),
         * taking their marks from the companions. By default it runs its own partition only.
         * @param partition the partition
         * @param dirty what changed since its last pass; the runner may add to it
         * @param companions where the marks of other partitions' waiting passes are taken from
         * @return per partition run — its own and every one whose marks it took — whether it ran
         *     and what must run again; a partition taken and missing here runs all its marks again
         */
        default Map<String, Ran> runWith(String partition, DirtySources dirty, Companions companions) {
            return Map.of(partition, run(partition, dirty));
        }
    }

    /**
     * The waiting passes of other partitions a pass may take with it. Taking one takes its marks as its
     * own pass would (they stay pending for the checkpoints, as "taken") and holds its lane, so no
     * other work of that partition runs until the pass that took it ends; what that pass hands back,
     * or all of it when the pass throws, goes back dirty before the marks are let go — the rules of
     * every pass.
     */
    public interface Companions {

        /** Takes nothing: a pass alone. */
        Companions NONE = (max, accepts) -> Map.of();

        /**
         * Takes the marks of up to {@code max} other partitions whose passes wait in their lanes
         * (their debounce ran out), whose lanes run nothing else, and whose marks the test accepts.
         * @param max the most partitions to take
         * @param accepts given a partition and a copy of its marks, whether to take them; called
         *     without the scheduler's lock
         * @return per partition taken, a copy of the marks taken
         */
        Map<String, DirtySources> take(int max, BiPredicate<String, DirtySources> accepts);
    }

    /**
     * What a pass did with the marks it took.
     *
     * @param here whether it ran the views on this instance; false when it left them to the
     *     partition's owner elsewhere (and then applied nothing)
     * @param retries what must run again later here
     */
    public record Ran(boolean here, DirtySources retries) {

        /**
         * A pass that ran the views here.
         * @param retries what must run again later
         * @return the outcome
         */
        public static Ran here(DirtySources retries) {
            return new Ran(true, retries);
        }

        /**
         * A pass that ran nothing: the partition is another instance's, which catches it up.
         * @return the outcome
         */
        public static Ran elsewhere() {
            return new Ran(false, new DirtySources());
        }
    }

    private final EngineClock clock;

    private final Duration debounce;

    private final Duration maxDelay;

    private final Duration retryDelay;

    private final PartitionLanes lanes;

    private final PassRunner runner;

    private final Map<String, DirtySources> dirty = new HashMap<>();

    private final Map<String, Instant> firstMark = new HashMap<>();

    private final Map<String, EngineClock.Timer> timers = new HashMap<>();

    /** The marks each running pass has taken, for checkpoints; the pass works on a copy. */
    private final Map<String, DirtySources> taken = new HashMap<>();

    /** The partitions with a pass waiting in their lane, not started yet. */
    private final Set<String> queued = new HashSet<>();

    /** Catch-ups waiting for their turn, oldest first; their marks are dirty already. */
    private final Set<String> catchUpsWaiting = new LinkedHashSet<>();

    /** Catch-ups let into the lanes and not ended yet: at most {@code catchUpLimit}. */
    private final Set<String> catchUpsRunning = new HashSet<>();

    private final int catchUpLimit;

    /** Per partition, how many passes have taken marks: the number of the newest take. */
    private final Map<String, Long> takes = new HashMap<>();

    /** Per partition, the newest pass that ended: its take's number and the marks it handed back. */
    private final Map<String, Ended> ended = new HashMap<>();

    private long catchUpsDone;

    private long catchUpsTotal;

    private boolean intake = true;

    /**
     * Creates the scheduler.
     * @param clock the clock of the debounce timers
     * @param debounce the quiet time before a pass
     * @param maxDelay the longest a change waits for its pass
     * @param retryDelay how long work that could not be applied waits before it runs again
     * @param catchUpLimit how many catch-up passes may be queued or running at once
     * @param lanes where passes run
     * @param runner what a pass does
     */
    public PassScheduler(EngineClock clock, Duration debounce, Duration maxDelay, Duration retryDelay,
            int catchUpLimit, PartitionLanes lanes, PassRunner runner) {
        this.clock = clock;
        this.catchUpLimit = Math.max(1, catchUpLimit);
        this.debounce = debounce;
        this.maxDelay = maxDelay.compareTo(debounce) < 0 ? debounce : maxDelay;
        this.retryDelay = retryDelay;
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
        DirtySources marks = new DirtySources();
        marks.addAll(source);
        mark(partition, marks);
    }

    /**
     * Marks a source of a partition dirty for some of its views only (those whose source fields a
     * change touched), and (re)arms the partition's debounce timer.
     * @param partition the partition
     * @param source the source that changed
     * @param viewIds the views the change may affect
     */
    public void markDirty(String partition, String source, Collection<String> viewIds) {
        markDirty(partition, source, viewIds, null);
    }

    /**
     * Marks a source of a partition dirty for some of its views, for an event of a known cluster
     * time: the pass reads at or after it.
     * @param partition the partition
     * @param source the source that changed
     * @param viewIds the views the change may affect
     * @param clusterTime the event's cluster time, or null when unknown
     */
    public void markDirty(String partition, String source, Collection<String> viewIds,
            @Nullable BsonTimestamp clusterTime) {
        DirtySources marks = new DirtySources();
        marks.add(source, viewIds);
        marks.noteClusterTime(source, clusterTime);
        mark(partition, marks);
    }

    /**
     * Marks a source of a partition dirty for some of its views, with the keys of their rows the
     * change affects, for an event of a known cluster time.
     * @param partition the partition
     * @param source the source that changed
     * @param keysByView per view the change may affect, its affected keys (or a full pass)
     * @param clusterTime the event's cluster time, or null when unknown
     */
    public void markDirty(String partition, String source,
            Map<String, AffectedKeys> keysByView,
            @Nullable BsonTimestamp clusterTime) {
        DirtySources marks = new DirtySources();
        marks.add(source, keysByView);
        marks.noteClusterTime(source, clusterTime);
        mark(partition, marks);
    }

    /**
     * Marks a source of a partition dirty for some of its views, for an event a stream replays after
     * it resumed from a saved checkpoint: its pass may let a view go whose stored status covers it
     * ({@link DirtySources#addReplayed}). Pending for the checkpoints as any mark.
     * @param partition the partition
     * @param source the source that changed
     * @param keysByView per view the change may affect, its affected keys (or a full pass)
     * @param clusterTime the event's cluster time
     */
    public void markReplayed(String partition, String source,
            Map<String, AffectedKeys> keysByView,
            BsonTimestamp clusterTime) {
        DirtySources marks = new DirtySources();
        marks.addReplayed(source, keysByView, clusterTime);
        mark(partition, marks);
    }

    /**
     * Marks every view of a partition for a catch-up, for changes no one may have heard (a
     * partition taken over). See {@link #catchUp(String, DirtySources)}.
     * @param partition the partition
     */
    public void markCatchUp(String partition) {
        DirtySources marks = new DirtySources();
        marks.addEverything();
        catchUp(partition, marks);
    }

    /**
     * Marks a partition this instance took over from another: a catch-up whose pass runs only the
     * views the previous owner may have left changes of ({@link DirtySources#addHandover()}).
     * @param partition the partition
     */
    public void markHandover(String partition) {
        DirtySources marks = new DirtySources();
        marks.addHandover();
        catchUp(partition, marks);
    }

    /**
     * Marks work of a catch-up (a first start, a partition taken over, a stream that lost its
     * history). Catch-ups do not wait for a debounce but take turns: at most {@code catchUpLimit}
     * are queued or running at once, the others wait in order, so a start that catches up ten
     * thousand partitions queues a bounded number of passes. The marks are dirty from now on, so
     * every checkpoint names them until they ran.
     * @param partition the partition
     * @param marks what must run
     */
    public void catchUp(String partition, DirtySources marks) {
        synchronized (this) {
            dirty.computeIfAbsent(partition, key -> new DirtySources()).addAll(marks);
            firstMark.putIfAbsent(partition, clock.now());
            // Also when its catch-up runs already: that pass may have taken its marks before these came.
            if (catchUpsWaiting.add(partition)) {
                catchUpsTotal++;
            }
        }
        letCatchUpsIn();
    }

    /** Lets waiting catch-ups into the lanes while fewer than the limit are in. */
    private void letCatchUpsIn() {
        List<String> admitted = new ArrayList<>();
        synchronized (this) {
            if (!intake) {
                return;
            }
            Iterator<String> waiting = catchUpsWaiting.iterator();
            while (catchUpsRunning.size() < catchUpLimit && waiting.hasNext()) {
                String partition = waiting.next();
                if (catchUpsRunning.contains(partition)) {
                    // Its turn comes again once the catch-up running now ends.
                    continue;
                }
                waiting.remove();
                catchUpsRunning.add(partition);
                admitted.add(partition);
            }
        }
        for (String partition : admitted) {
            if (!fire(partition)) {
                // Nothing was queued for this turn (a pass already waits in the lane and takes the marks,
                // or they were taken already): the turn ends now and the next catch-up may come in.
                passEnded(partition);
            }
        }
    }

    /** How far the catch-ups are. */
    public synchronized CatchUpProgress catchUpProgress() {
        return new CatchUpProgress(catchUpsTotal, catchUpsDone, catchUpsRunning.size(), catchUpsWaiting.size());
    }

    /**
     * Puts back work that could not be applied; it runs again after the retry delay (or with the
     * next change, whichever comes first), and stays pending for the checkpoints until then.
     * @param partition the partition
     * @param marks what must run again
     */
    public synchronized void retry(String partition, DirtySources marks) {
        if (marks.isEmpty()) {
            return;
        }
        dirty.computeIfAbsent(partition, key -> new DirtySources()).addAll(marks);
        firstMark.putIfAbsent(partition, clock.now());
        boolean arm = intake && !timers.containsKey(partition);
        if (arm) {
            timers.put(partition, clock.schedule(retryDelay, () -> fire(partition)));
        }
        if (log.isDebugEnabled()) {
            log.debug("Partition {} runs {} again{}", partition, marks,
                    arm ? " in " + Durations.text(retryDelay) : intake ? " with its armed timer" : " after the restart");
        }
    }

    private synchronized void mark(String partition, DirtySources marks) {
        // Recorded even after stopIntake: the last checkpoint must name every change it is past.
        dirty.computeIfAbsent(partition, key -> new DirtySources()).addAll(marks);
        if (!intake) {
            return;
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

    /** Queues the partition's pass; false when stopped, nothing is dirty, or a pass already waits in its lane. */
    private boolean fire(String partition) {
        synchronized (this) {
            timers.remove(partition);
            if (!intake || !dirty.containsKey(partition) || !queued.add(partition)) {
                // Stopped, nothing to do, or a pass already waits in the lane and will take these marks.
                return false;
            }
        }
        lanes.submit(partition, () -> {
            DirtySources sources = take(partition);
            try {
                if (!sources.isEmpty()) {
                    runTaken(partition, sources, takeNumber(partition));
                }
            }
            finally {
                passEnded(partition);
            }
            return null;
        });
        return true;
    }

    private void runTaken(String partition, DirtySources sources, long number) {
        DirtySources again = new DirtySources();
        boolean here = false;
        TakenCompanions companions = new TakenCompanions(partition);
        Map<String, Ran> ran = Map.of();
        try {
            ran = runner.runWith(partition, sources.copy(), companions);
            Ran own = ran.get(partition);
            again = own == null ? sources : own.retries();
            here = own != null && own.here();
        }
        catch (RuntimeException ex) {
            log.error("The pass of partition {} failed; it runs again in {}", partition, Durations.text(retryDelay), ex);
            again = sources;
        }
        finally {
            // The retry goes back before the taken marks are let go, so a checkpoint always sees one of them.
            retry(partition, again);
            release(partition, number, here, again);
            companions.end(ran);
        }
    }

    /**
     * The partitions one pass took with it, each with its take's number, its marks and its lane's
     * hold. Used on the pass's thread only; the scheduler's state it changes is under its lock.
     */
    private final class TakenCompanions implements Companions {

        private final String leader;

        private final Map<String, Companion> taken = new LinkedHashMap<>();

        TakenCompanions(String leader) {
            this.leader = leader;
        }

        @Override
        public Map<String, DirtySources> take(int max, BiPredicate<String, DirtySources> accepts) {
            Map<String, DirtySources> candidates = new LinkedHashMap<>();
            synchronized (PassScheduler.this) {
                if (!intake) {
                    return Map.of();
                }
                for (String partition : queued) {
                    if (candidates.size() >= 4 * max) {
                        break;
                    }
                    DirtySources marks = dirty.get(partition);
                    if (!partition.equals(leader) && marks != null && !PassScheduler.this.taken.containsKey(partition)
                            && !catchUpsRunning.contains(partition) && !catchUpsWaiting.contains(partition)
                            && !taken.containsKey(partition)) {
                        candidates.put(partition, marks.copy());
                    }
                }
            }
            Map<String, DirtySources> took = new LinkedHashMap<>();
            for (Map.Entry<String, DirtySources> candidate : candidates.entrySet()) {
                if (took.size() >= max) {
                    break;
                }
                String partition = candidate.getKey();
                if (!accepts.test(partition, candidate.getValue())) {
                    continue;
                }
                // Only a lane that runs nothing, with at most its waiting pass queued
                PartitionLanes.Held held = lanes.hold(partition, 1);
                if (held == null) {
                    continue;
                }
                DirtySources marks = takeHeld(partition);
                if (marks == null) {
                    held.close();
                    continue;
                }
                taken.put(partition, new Companion(takeNumber(partition), marks, held));
                took.put(partition, marks.copy());
            }
            return took;
        }

        /** Each partition taken: what its run hands back (everything when it has no outcome) goes back, then its marks and lane are let go. */
        void end(Map<String, Ran> ran) {
            for (Map.Entry<String, Companion> entry : taken.entrySet()) {
                String partition = entry.getKey();
                Companion companion = entry.getValue();
                try {
                    Ran outcome = ran.get(partition);
                    DirtySources again = outcome == null ? companion.marks() : outcome.retries();
                    retry(partition, again);
                    release(partition, companion.number(), outcome != null && outcome.here(), again);
                }
                finally {
                    companion.held().close();
                }
            }
        }
    }

    /** A partition taken with another's pass: its take's number, the marks taken, its lane's hold. */
    private record Companion(long number, DirtySources marks, PartitionLanes.Held held) {
    }

    /**
     * Takes the marks of a partition whose lane the caller holds, as its waiting pass would; the pass
     * stays queued (it finds nothing, or what came since). Null when nothing is dirty any more.
     */
    private synchronized @Nullable DirtySources takeHeld(String partition) {
        if (!intake || taken.containsKey(partition)) {
            return null;
        }
        DirtySources sources = dirty.remove(partition);
        if (sources == null) {
            return null;
        }
        firstMark.remove(partition);
        taken.put(partition, sources);
        takes.merge(partition, 1L, Long::sum);
        log.debug("A batched pass takes the marks of partition {}: {}", partition, sources);
        return sources;
    }

    /** A pass of the partition ended (or found nothing to do): a catch-up's turn ends with it. */
    private void passEnded(String partition) {
        boolean wasCatchUp;
        synchronized (this) {
            wasCatchUp = catchUpsRunning.remove(partition);
            if (wasCatchUp) {
                catchUpsDone++;
            }
        }
        if (wasCatchUp) {
            letCatchUpsIn();
        }
    }

    /** The pass takes the set: a change from now on goes into a new set and a new pass. */
    private synchronized DirtySources take(String partition) {
        queued.remove(partition);
        if (!intake) {
            // Stopped: the marks stay dirty for the last checkpoint.
            return new DirtySources();
        }
        DirtySources sources = dirty.remove(partition);
        firstMark.remove(partition);
        if (sources == null) {
            return new DirtySources();
        }
        taken.put(partition, sources);
        takes.merge(partition, 1L, Long::sum);
        log.debug("The pass of partition {} takes {}", partition, sources);
        return sources;
    }

    private synchronized long takeNumber(String partition) {
        return takes.getOrDefault(partition, 0L);
    }

    private synchronized void release(String partition, long number, boolean here, DirtySources handedBack) {
        taken.remove(partition);
        ended.put(partition, new Ended(number, here, handedBack.isEmpty() ? null : handedBack.copy()));
    }

    /**
     * The newest pass of a partition that ended: the number of its take, whether it ran the views
     * here (not when it left them to another instance, nor when it threw), and what it handed back
     * to run again.
     */
    private record Ended(long take, boolean here, @Nullable DirtySources handedBack) {
    }

    /**
     * Where the passes of a partition stand for some of its sources: for a caller waiting until the
     * changes it knows of are applied. Marks heard before this call are either still pending here,
     * or were taken by a pass numbered at most {@link PassProgress#takes()}.
     * @param partition the partition
     * @param sources the sources the caller cares about
     * @return one consistent picture, taken under the scheduler's lock
     */
    public synchronized PassProgress progress(String partition, Collection<String> sources) {
        DirtySources waiting = dirty.get(partition);
        DirtySources running = taken.get(partition);
        Ended last = ended.get(partition);
        return new PassProgress(takes.getOrDefault(partition, 0L), last == null ? 0 : last.take(),
                last != null && (!last.here() || touches(last.handedBack(), sources)),
                touches(waiting, sources) || touches(running, sources));
    }

    private static boolean touches(@Nullable DirtySources marks, Collection<String> sources) {
        return marks != null && sources.stream().anyMatch(marks::contains);
    }

    /**
     * Where the passes of a partition stand.
     *
     * @param takes how many passes have taken marks so far (the number of the newest take)
     * @param lastEnded the number of the newest take whose pass ended, 0 when none did
     * @param lastEndedUnapplied whether that pass left marks of the sources asked about unapplied:
     *     it handed them back to run again, or it ran nothing here (the partition was another
     *     instance's by then, or the pass threw)
     * @param pending whether marks of those sources wait for a pass or are taken by one not ended
     */
    public record PassProgress(long takes, long lastEnded, boolean lastEndedUnapplied, boolean pending) {
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

    /** Whether a partition has marks not yet applied: dirty, or taken by a running pass. */
    public synchronized boolean isPending(String partition) {
        return dirty.containsKey(partition) || taken.containsKey(partition);
    }

    /** Whether a partition has dirty sources waiting for a pass. */
    public synchronized boolean isDirty(String partition) {
        return dirty.containsKey(partition);
    }

    /**
     * Stops intake: waiting passes do not start; passes already running finish. Marks are still
     * recorded and stay dirty, so the last checkpoint names their partitions and a restart runs them.
     */
    public synchronized void stopIntake() {
        intake = false;
        timers.values().forEach(EngineClock.Timer::cancel);
        timers.clear();
    }

    /** Whether passes are started. */
    public synchronized boolean intake() {
        return intake;
    }

    /**
     * What the scheduler holds at this moment, for probes and diagnostics (tests ask it whether an
     * engine is quiescent): one consistent picture, taken under the scheduler's lock.
     * @return the partitions dirty, taken, queued, with a timer armed, and the catch-up turns
     */
    public synchronized Backlog backlog() {
        return new Backlog(intake, Set.copyOf(dirty.keySet()), Set.copyOf(taken.keySet()), Set.copyOf(queued),
                Set.copyOf(timers.keySet()), Set.copyOf(catchUpsWaiting), Set.copyOf(catchUpsRunning));
    }

    /**
     * A picture of the scheduler's work.
     *
     * @param intake whether passes start
     * @param dirty partitions with marks no pass has taken yet
     * @param taken partitions whose marks a running pass has taken
     * @param queued partitions with a pass waiting in their lane
     * @param armed partitions with a debounce or retry timer armed
     * @param catchUpsWaiting catch-ups waiting for their turn
     * @param catchUpsRunning catch-ups let into the lanes and not ended
     */
    public record Backlog(boolean intake, Set<String> dirty, Set<String> taken, Set<String> queued, Set<String> armed,
            Set<String> catchUpsWaiting, Set<String> catchUpsRunning) {

        /** Nothing marked, taken, queued, armed or in a catch-up turn. */
        public boolean isEmpty() {
            return dirty.isEmpty() && taken.isEmpty() && queued.isEmpty() && armed.isEmpty()
                    && catchUpsWaiting.isEmpty() && catchUpsRunning.isEmpty();
        }

        /**
         * Dirty partitions that nothing is set to run while passes start: no timer armed, no pass
         * queued or running, no catch-up turn. Their marks wait for the next change of the partition;
         * seen after the timers had their time, that is a mark the scheduler lost track of. (A
         * timer that fires while a mark re-arms it may briefly leave the map, so a picture taken
         * while timers fire can name a partition here that is about to run.)
         */
        public Set<String> stuck() {
            if (!intake) {
                return Set.of();
            }
            Set<String> stuck = new TreeSet<>(dirty);
            stuck.removeAll(taken);
            stuck.removeAll(queued);
            stuck.removeAll(armed);
            stuck.removeAll(catchUpsWaiting);
            stuck.removeAll(catchUpsRunning);
            return stuck;
        }

        @Override
        public String toString() {
            if (isEmpty()) {
                return "nothing pending" + (intake ? "" : " (intake stopped)");
            }
            return "dirty " + new java.util.TreeSet<>(dirty) + ", taken " + new java.util.TreeSet<>(taken) + ", queued "
                    + new java.util.TreeSet<>(queued) + ", armed " + new java.util.TreeSet<>(armed) + ", catch-ups waiting "
                    + catchUpsWaiting + ", running " + new java.util.TreeSet<>(catchUpsRunning)
                    + (stuck().isEmpty() ? "" : ", STUCK " + stuck()) + (intake ? "" : " (intake stopped)");
        }
    }

    /** The marks of a partition not yet taken by a pass. */
    // Visible for testing
    synchronized @Nullable DirtySources dirtyOf(String partition) {
        DirtySources sources = dirty.get(partition);
        return sources == null ? null : sources.copy();
    }
}
