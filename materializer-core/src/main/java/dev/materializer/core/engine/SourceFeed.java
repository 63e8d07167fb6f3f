package dev.materializer.core.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.EngineClock;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.routing.AffectedPartitions;
import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.core.server.PreImages;
import dev.materializer.core.server.SourceIndexes;
import dev.materializer.core.stream.Checkpoint;
import dev.materializer.core.stream.CheckpointStore;
import dev.materializer.core.stream.CollectionStream;
import dev.materializer.core.stream.StreamListener;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.write.StatusStore;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change streams of the sources: one per source collection, shared by every view and
 * partition that reads it, opened when the first view reads the collection and closed with the
 * last. Each event is routed once to the partitions it can affect and marks dirty those this
 * instance owns.
 *
 * <p>What it guarantees (the checkpoint invariant, with {@link PassScheduler}): every event this
 * instance is past is marked for every owned partition it may affect — when routing fails, for
 * every owned partition reading the source (fail safe: more passes, never fewer). A checkpoint it
 * hands to a stream is taken by {@link Checkpoint#take} (the live set, the pending partitions, the
 * live set again), so the pending list includes every catch-up of a partition that live set gives
 * this instance and never answers for a partition a beat moved away meanwhile. At the first open
 * it hears of — also when the stream's first tries failed before a cursor opened — it marks the
 * owned partitions that no checkpoint answers for ({@link CheckpointAnswers}), so no restart — same
 * instance id or a new one, within the partition lease or after it, reaching MongoDB at once or
 * after a while — skips a change.
 *
 * <p>It also keeps, for every partition owned or not, what a handover needs to know
 * ({@link HeardChanges}): which partitions each stream heard from an answered position on, and the
 * newest event routed to each view — noted before it asks who owns the partition. A delete that
 * names no partition is narrowed to the owned partitions holding its row first ({@link BroadcastDeletes}).
 * Every event that names no partition (a broadcast) is told to the listener, and frequent ones of a
 * source are logged once ({@link BroadcastWarning}); an event whose routing fails is neither.
 *
 * <p>Threads: {@link #sync()} and {@link #close()} run on the engine's control paths (start, views
 * stream) under this object's monitor; the listener methods run on each stream's own thread.
 */
final class SourceFeed implements StreamListener {

    private static final Logger log = LoggerFactory.getLogger(SourceFeed.class);

    /** How often, at most, a stream saves its resume token. */
    static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(5);

    private static final Duration OPEN_WAIT = Duration.ofSeconds(10);

    private final MongoDatabase database;

    private final HeardChanges heard;

    /** Narrows a delete without its partition to the owned partitions that hold its row. */
    private final BroadcastDeletes deletes;

    /** What the saved checkpoints answer for, at a stream's first open and at a take-over. */
    private final CheckpointAnswers answers;

    /** Warns once per source when its events often name no partition. */
    private final BroadcastWarning broadcasts;

    private final ViewRegistry registry;

    private final Routing routing;

    private final PassScheduler scheduler;

    private final CheckpointStore checkpoints;

    private final EngineClock clock;

    private final MaterializerOptions options;

    private final MaterializerListener listener;

    private final Map<String, CollectionStream> streams = new ConcurrentHashMap<>();

    /** Why each collection's stream last ended, for the status of the views that catch up. */
    private final Map<String, String> lastEnd = new ConcurrentHashMap<>();

    private final StatusStore status;

    private final Predicate<String> owns;

    private final Supplier<Set<String>> live;

    /**
     * Per collection, the checkpoint its stream took last: a live set moved since, or partitions it
     * listed pending and done since, ask for an early save.
     */
    private final Map<String, Checkpoint> lastTaken = new ConcurrentHashMap<>();

    /** The causes of routing failures logged already: each is logged once, then counted quietly. */
    private final Set<String> routingFailures = ConcurrentHashMap.newKeySet();

    private final Duration skew;

    /** Set by {@link #close}: a sync racing with the close opens nothing more. */
    private boolean closed;

    private volatile @Nullable Duration lag;

    /**
     * Which views of which partitions an event marks: the partitions it can affect (the router), and
     * there the views whose watched fields it may touch (the registry). A seam for tests, which
     * make it fail to see what a routing failure marks.
     */
    @FunctionalInterface
    interface Routing {

        /**
         * Per partition, the views the event may affect, each with the keys it may affect there; and
         * whether the event named no partition.
         * @throws RuntimeException when the event cannot be routed; the feed then fails safe
         */
        Routed route(String collection, SourceChange change);

        /** The engine's routing: the router's partitions, the registry's views there. */
        static Routing of(PartitionRouter router, ViewRegistry registry) {
            return (collection, change) -> {
                AffectedPartitions affected = router.route(collection, change);
                if (affected.all()) {
                    return new Routed(registry.viewsToMark(collection, change, null), true);
                }
                if (affected.partitions().isEmpty()) {
                    return Routed.NOWHERE;
                }
                return new Routed(registry.viewsToMark(collection, change, affected.partitions()), false);
            };
        }
    }

    /**
     * What routing found for an event.
     * @param marks per partition, the views the event may affect, each with the keys it may affect
     * @param broadcast whether the event named no partition, so it reached every partition reading
     *     its source (see {@link MaterializerListener#onBroadcastEvent})
     */
    record Routed(Map<String, Map<String, AffectedKeys>> marks, boolean broadcast) {

        /** An event for no partition. */
        static final Routed NOWHERE = new Routed(Map.of(), false);
    }

    /**
     * Creates the feed; no stream opens before {@link #sync()}.
     * @param heard what the streams heard of every partition, for the handovers to know what changed
     * @param skew how far this machine's clock is ahead of the server's, measured at the start: the lag
     *     of a stream is measured against the server's time
     */
    SourceFeed(MongoDatabase database, ViewRegistry registry, Routing routing, PassScheduler scheduler,
            CheckpointStore checkpoints, EngineClock clock, MaterializerOptions options, MaterializerListener listener,
            StatusStore status, Predicate<String> owns, Supplier<Set<String>> live,
            HeardChanges heard, Duration skew) {
        this.heard = heard;
        this.skew = skew;
        this.answers = new CheckpointAnswers(registry, heard, scheduler, checkpoints, owns);
        this.database = database;
        this.deletes = new BroadcastDeletes(database, registry, options.partitionField(), scheduler::pendingPartitions);
        this.broadcasts = new BroadcastWarning(clock,
                source -> !options.enablePreImages() && registry.needsOldKeys(source));
        this.owns = owns;
        this.live = live;
        this.status = status;
        this.registry = registry;
        this.routing = routing;
        this.scheduler = scheduler;
        this.checkpoints = checkpoints;
        this.clock = clock;
        this.options = options;
        this.listener = listener;
    }

    /**
     * Opens the streams of sources that views read now, closes those no view reads any more, and
     * has the open ones keep the key paths of the views reading them now (a projected stream
     * reopens where it lacks one).
     */
    synchronized void sync() throws InterruptedException {
        if (closed) {
            return;
        }
        Set<String> wanted = registry.sources();
        for (String source : new HashSet<>(streams.keySet())) {
            if (!wanted.contains(source)) {
                CollectionStream stream = streams.remove(source);
                stream.close();
                log.info("Closed the change stream of {}: no view reads it", source);
            }
        }
        for (String source : wanted) {
            CollectionStream open = streams.get(source);
            if (open != null) {
                // A view added or changed may key by paths the open stream's projection left out
                open.keptPathsChanged();
            }
            else {
                boolean preImages = CapabilityDetector.preImages(database, source);
                if (!preImages && options.enablePreImages() && registry.needsOldKeys(source)) {
                    preImages = PreImages.enable(database, source);
                }
                CollectionStream stream = new CollectionStream(database, source, preImages, options.partitionField(),
                        () -> registry.keyPathsOf(source), checkpoints, this, clock,
                        options.rewatch(), options.maxBackoff(), CHECKPOINT_INTERVAL);
                streams.put(source, stream);
                stream.start(OPEN_WAIT);
                log.info("Opened the change stream of {}{}", source, preImages ? " (with pre-images)" : "");
                if (!options.storageSources().containsKey(source)) {
                    // A storage source's partition is in its _id, indexed always
                    SourceIndexes.warnIfNotIndexed(database, source, options.partitionField());
                }
            }
        }
    }

    int openStreams() {
        int open = 0;
        for (CollectionStream stream : streams.values()) {
            if (stream.isOpen()) {
                open++;
            }
        }
        return open;
    }

    /** The watched collections whose stream is not open now (reopening after an error or an end). */
    List<String> closedStreams() {
        List<String> closed = new ArrayList<>();
        streams.forEach((collection, stream) -> {
            if (!stream.isOpen()) {
                closed.add(collection);
            }
        });
        Collections.sort(closed);
        return closed;
    }

    /**
     * The watched collections whose stream has not heard every event committed before a moment
     * (see {@link CollectionStream#caughtUpSince}), sorted; for probes of tests.
     * @param sinceNanos the moment, in {@link System#nanoTime()}
     */
    List<String> streamsBehind(long sinceNanos) {
        List<String> behind = new ArrayList<>();
        streams.forEach((collection, stream) -> {
            if (!stream.caughtUpSince(sinceNanos)) {
                behind.add(collection);
            }
        });
        Collections.sort(behind);
        return behind;
    }

    /**
     * Whether the stream of a collection handed the router every event committed before a moment
     * (see {@link CollectionStream#caughtUpSince}), or an event after a cluster time; false for a
     * collection not watched.
     * @param collection the collection
     * @param sinceNanos the moment, in {@link System#nanoTime()}
     * @param clusterTime a cluster time at or after the changes in question, when known
     */
    boolean heard(String collection, long sinceNanos, @Nullable BsonTimestamp clusterTime) {
        CollectionStream stream = streams.get(collection);
        return stream != null && stream.heardEverythingBefore(sinceNanos, clusterTime);
    }

    /** The paths the images of the source's open cursor carry; null for whole images or no stream. */
    @Nullable Set<String> imagePaths(String collection) {
        CollectionStream stream = streams.get(collection);
        return stream == null ? null : stream.imagePaths();
    }

    @Nullable Duration lag() {
        return lag;
    }

    /** Closes every stream and waits a bounded time for their last checkpoints. */
    void close(Duration wait) throws InterruptedException {
        Map<String, CollectionStream> closing;
        synchronized (this) {
            closed = true;
            closing = new HashMap<>(streams);
            streams.clear();
        }
        closing.values().forEach(CollectionStream::close);
        for (CollectionStream stream : closing.values()) {
            stream.awaitClosed(wait);
        }
    }

    /** Ends every stream without a last checkpoint, as a crash would. */
    void abandon() {
        Map<String, CollectionStream> closing;
        synchronized (this) {
            closed = true;
            closing = new HashMap<>(streams);
            streams.clear();
        }
        closing.values().forEach(CollectionStream::abandon);
    }

    @Override
    public void onChange(String collection, SourceChange change) {
        Duration eventLag = lagOf(change);
        if (eventLag != null) {
            lag = eventLag;
        }
        listener.onChange(collection, eventLag);
        Map<String, Map<String, AffectedKeys>> marks;
        try {
            Routed routed = routing.route(collection, change);
            if (routed.broadcast()) {
                listener.onBroadcastEvent(collection);
                broadcasts.heard(collection, routed.marks().size());
            }
            marks = deletes.narrow(collection, change, routed.marks(), owns);
        }
        catch (RuntimeException ex) {
            markEveryReader(collection, ex);
            return;
        }
        CollectionStream stream = streams.get(collection);
        // A replayed event of a known time may have been applied by another instance meanwhile: its
        // pass asks the view's stored status (a mark all the same, pending for the checkpoints)
        BsonTimestamp replayedAt = stream != null && stream.replaying() ? change.clusterTime() : null;
        marks.forEach((partition, keysByView) -> {
            // Before who owns it is asked: a pass that finds the partition owned sees what was not marked
            heard.heard(collection, partition, keysByView, change.clusterTime());
            if (owns.test(partition)) {
                if (replayedAt != null) {
                    scheduler.markReplayed(partition, collection, keysByView, replayedAt);
                }
                else {
                    scheduler.markDirty(partition, collection, keysByView, change.clusterTime());
                }
                log.debug("An event of {} at {} marks partition {} for {}", collection, change.clusterTime(), partition,
                        keysByView.keySet());
            }
            else {
                log.debug("An event of {} at {} is for partition {}, which another instance owns", collection,
                        change.clusterTime(), partition);
            }
        });
    }

    /** Routing failed: the event may affect anyone, so every owned partition reading the source runs. */
    private void markEveryReader(String collection, RuntimeException failure) {
        String cause = failure.getClass().getName() + ": " + failure.getMessage();
        if (routingFailures.add(cause)) {
            log.error("An event of {} could not be routed; every partition reading {} runs instead (logged once per cause)",
                    collection, collection, failure);
        }
        heard.heardEvery(collection, registry.partitionsReading(collection));
        registry.partitionsReading(collection).stream().filter(owns)
            .forEach(partition -> scheduler.markDirty(partition, collection));
    }

    private @Nullable Duration lagOf(SourceChange change) {
        Instant at = change.wallTime();
        if (at == null) {
            return null;
        }
        Duration behind = Duration.between(at, clock.now().minus(skew));
        return behind.isNegative() ? Duration.ZERO : behind;
    }

    @Override
    public void onOpened(String collection, boolean resumed, boolean reopened, Checkpoint from) {
        if (resumed && from.token() == null) {
            // Resumed from the stream's own position: every event before it was handed over already.
            return;
        }
        if (!resumed && reopened) {
            // Started again from now: what happened before is unknown, so every view reading it catches up.
            String reason = "the change stream of " + collection + " " + lastEnd.getOrDefault(collection, "ended")
                    + " and started again from now";
            log.warn("{}: its views run a full catch-up", reason);
            heard.forget(collection, registry.viewsReading(collection));
            sayCatchUp(collection, reason);
            registry.partitionsReading(collection).stream().filter(owns)
                .forEach(partition -> scheduler.catchUp(partition, CheckpointAnswers.everyViewReading(collection)));
            return;
        }
        // The first open this feed hears of: the checkpoints answer for some partitions, the owned others catch up
        answers.atFirstOpen(collection, from);
    }

    /**
     * Before a take-over: the partitions gained that no checkpoint answered for when their streams
     * first opened may be answered for by a checkpoint saved since ({@link CheckpointAnswers#atTakeOver}).
     * @param gained the partitions this instance takes over
     */
    void answerFromCheckpoints(Set<String> gained) {
        answers.atTakeOver(gained, streams);
    }

    /** The status of each view reading the collection says why it catches up. */
    private void sayCatchUp(String collection, String reason) {
        for (ViewDefinition view : registry.viewsReading(collection)) {
            if (!owns.test(view.partition())) {
                continue;
            }
            try {
                status.writeCatchUp(view, reason, clock.now());
            }
            catch (MongoException ex) {
                log.warn("The catch-up of view {} was not written in its status: {}", view.key(), ex.getMessage());
            }
        }
    }

    @Override
    public void onEnded(String collection, String reason, boolean historyLost) {
        lastEnd.put(collection, historyLost ? reason + " (history lost)" : reason);
        if (historyLost) {
            // Until it starts again from now, the events after its end are heard by no one here
            heard.forget(collection, registry.viewsReading(collection));
        }
        listener.onStreamReopened(collection, reason);
        if (historyLost) {
            log.warn("The change stream of {} lost its history ({}): its views run a full catch-up when it reopens",
                    collection, reason);
        }
    }

    @Override
    public Checkpoint checkpointAt(String collection, BsonDocument token) {
        Checkpoint checkpoint = Checkpoint.take(token, live, () -> scheduler.pendingPartitions(collection));
        lastTaken.put(collection, checkpoint);
        return checkpoint;
    }

    /**
     * A quiet stream saves at once, not an interval later, when no partition has work left from its
     * collection and its last checkpoint answers for less than a save now would: the live set moved
     * since, it listed partitions pending (an interval's save taken while a take-over's passes ran),
     * or there is none yet. The checkpoint then answers for every partition the move gave this
     * instance, so an instance that restarts or starts under a new id right after a take-over resumes
     * without catching them up. While the take-over's passes run, a save would list them as pending,
     * so it waits for them (the interval's saves go on as before). Not before the first beat: the live
     * set is unknown.
     */
    @Override
    public boolean checkpointWanted(String collection) {
        Set<String> liveNow = live.get();
        Checkpoint last = lastTaken.get(collection);
        if (liveNow.isEmpty() || (last != null && liveNow.equals(last.live()) && last.pending().isEmpty())) {
            return false;
        }
        return scheduler.pendingPartitions(collection).isEmpty();
    }
}
