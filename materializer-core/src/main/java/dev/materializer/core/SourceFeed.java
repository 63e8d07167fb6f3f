package dev.materializer.core;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import com.mongodb.client.MongoDatabase;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.routing.AffectedPartitions;
import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.core.stream.CheckpointStore;
import dev.materializer.core.stream.CollectionStream;
import dev.materializer.core.stream.StreamListener;
import dev.materializer.core.time.EngineClock;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.write.StatusStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change streams of the sources: one per source collection, shared by every view and
 * partition that reads it, opened when the first view reads the collection and closed with the
 * last. Each event is routed once to the partitions it can affect and marks dirty those this
 * instance owns.
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

    private final ViewRegistry registry;

    private final PartitionRouter router;

    private final PassScheduler scheduler;

    private final CheckpointStore checkpoints;

    private final EngineClock clock;

    private final MaterializerOptions options;

    private final MaterializerListener listener;

    private final Map<String, CollectionStream> streams = new java.util.concurrent.ConcurrentHashMap<>();

    /** Why each collection's stream last ended, for the status of the views that catch up. */
    private final Map<String, String> lastEnd = new java.util.concurrent.ConcurrentHashMap<>();

    private final StatusStore status;

    private final java.util.function.Predicate<String> owns;

    private volatile Duration skew = Duration.ZERO;

    /** Set by {@link #close}: a sync racing with the close opens nothing more. */
    private boolean closed;

    private volatile @Nullable Duration lag;

    SourceFeed(MongoDatabase database, ViewRegistry registry, PartitionRouter router, PassScheduler scheduler,
            CheckpointStore checkpoints, EngineClock clock, MaterializerOptions options, MaterializerListener listener,
            StatusStore status, java.util.function.Predicate<String> owns) {
        this.database = database;
        this.owns = owns;
        this.status = status;
        this.registry = registry;
        this.router = router;
        this.scheduler = scheduler;
        this.checkpoints = checkpoints;
        this.clock = clock;
        this.options = options;
        this.listener = listener;
    }

    void skew(Duration skew) {
        this.skew = skew;
    }

    /** Opens the streams of sources that views read now, and closes those no view reads any more. */
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
            if (!streams.containsKey(source)) {
                boolean preImages = CapabilityDetector.preImages(database, source);
                CollectionStream stream = new CollectionStream(database, source, preImages, checkpoints, this, clock,
                        options.rewatch(), options.maxBackoff(), CHECKPOINT_INTERVAL);
                streams.put(source, stream);
                stream.start(OPEN_WAIT);
                log.info("Opened the change stream of {}{}", source, preImages ? " (with pre-images)" : "");
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
    java.util.List<String> closedStreams() {
        java.util.List<String> closed = new java.util.ArrayList<>();
        streams.forEach((collection, stream) -> {
            if (!stream.isOpen()) {
                closed.add(collection);
            }
        });
        java.util.Collections.sort(closed);
        return closed;
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
        AffectedPartitions affected = router.route(collection, change);
        if (!affected.all() && affected.partitions().isEmpty()) {
            return;
        }
        registry.viewsToMark(collection, change, affected.all() ? null : affected.partitions())
            .forEach((partition, viewIds) -> {
                if (owns.test(partition)) {
                    scheduler.markDirty(partition, collection, viewIds);
                }
            });
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
    public void onOpened(String collection, boolean resumed, boolean reopened, Set<String> pendingAtCheckpoint) {
        if (!resumed && reopened) {
            // Started again from now: what happened before is unknown, so every view reading it catches up.
            String reason = "the change stream of " + collection + " " + lastEnd.getOrDefault(collection, "ended")
                    + " and started again from now";
            log.warn("{}: its views run a full catch-up", reason);
            sayCatchUp(collection, reason);
            registry.partitionsReading(collection).stream().filter(owns)
                .forEach(partition -> scheduler.markDirty(partition, collection));
            return;
        }
        if (!resumed) {
            // A first open without a token: views never run run through their rebalance, so only the
            // views that ran before can have missed something.
            registry.materializedViewsReading(collection).forEach((partition, viewIds) -> {
                if (owns.test(partition)) {
                    scheduler.markDirty(partition, collection, viewIds);
                }
            });
            return;
        }
        Set<String> reading = registry.partitionsReading(collection);
        for (String partition : pendingAtCheckpoint) {
            if (reading.contains(partition) && owns.test(partition)) {
                scheduler.markDirty(partition, collection);
            }
        }
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
            catch (com.mongodb.MongoException ex) {
                log.warn("The catch-up of view {} was not written in its status: {}", view.key(), ex.getMessage());
            }
        }
    }

    @Override
    public void onEnded(String collection, String reason, boolean historyLost) {
        lastEnd.put(collection, historyLost ? reason + " (history lost)" : reason);
        listener.onStreamReopened(collection, reason);
        if (historyLost) {
            log.warn("The change stream of {} lost its history ({}): its views run a full catch-up when it reopens",
                    collection, reason);
        }
    }

    @Override
    public Set<String> pendingPartitions(String collection) {
        return scheduler.pendingPartitions(collection);
    }
}
