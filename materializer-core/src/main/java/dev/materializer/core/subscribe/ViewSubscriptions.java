package dev.materializer.core.subscribe;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.Generation;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.SnapshotReason;
import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewRow;
import dev.materializer.core.ViewRowsSnapshot;
import dev.materializer.core.ViewSubscriber;
import dev.materializer.core.ViewSubscription;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.server.ClockSkew;
import dev.materializer.core.stream.Checkpoint;
import dev.materializer.core.stream.ForwardingStreamListener;
import dev.materializer.core.stream.StreamListener;
import dev.materializer.core.write.ReadableGenerations;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscriptions to views' changes of one engine. Driven by the views stream, which every
 * instance reads whoever owns the partition: each view document it hands over for a view with
 * subscribers is noted (the newest per view), and a worker thread reads, per flip seen, the
 * versions that moved since the generation the subscribers stand at — one indexed read
 * ({@link VersionReads}) — splits them into one delta per flip ({@link FlipDeltas}) and offers them
 * to each subscriber's queue. A view nobody follows costs nothing: its documents are not even noted.
 *
 * <p>What it guarantees a subscriber: a snapshot of the rows at a generation, then deltas in
 * generation order, each a whole flip, none skipped, each leaving the subscriber with exactly the
 * rows {@link dev.materializer.core.ViewFilter} reads at its generation. When deltas cannot be
 * proven whole — the generation it stands at is past (or within a quarter of the end of) its grace,
 * the view was written anew in its place, moved, deleted or rebuilt from the format before versions,
 * or its queue overflowed — it is handed a snapshot instead, with the reason. A resume from a
 * generation gets the deltas since while that generation's versions are kept and still there.
 *
 * <p>Threads: {@link #around}'s listener runs on the views stream's thread and only notes documents;
 * reads and offers run on one worker ({@code materializer-subscriptions}, started when there is work,
 * gone after 30 s idle); each subscription hands its queue over on its own thread.
 */
public final class ViewSubscriptions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ViewSubscriptions.class);

    /** How many deltas and snapshots a subscription queues before it counts as behind. */
    public static final int QUEUE_CAPACITY = 256;

    private final MongoCollection<BsonDocument> views;

    private final String partitionField;

    private final String statusField;

    private final String checkpointsCollection;

    private final MongoDatabase database;

    private final Duration grace;

    private final Duration retryAfter;

    private final int capacity;

    private final ReadableGenerations readable;

    private final VersionReads reads;

    /** Per view id, per partition subscribed to, the view as its subscribers stand. */
    private final Map<String, Map<String, TrackedView>> tracked = new ConcurrentHashMap<>();

    /** Per view id, the newest document heard and not applied yet; empty when deleted. */
    private final Map<String, Optional<BsonDocument>> heard = new ConcurrentHashMap<>();

    private final ThreadPoolExecutor worker;

    private final AtomicInteger threads = new AtomicInteger();

    private volatile @Nullable Duration skew;

    private volatile boolean closed;

    /**
     * Creates the subscriptions of an engine, each with a queue of the default capacity.
     * @param database the engine's database (primary, majority)
     * @param options the engine's options: the fields, the collections and the grace
     */
    public ViewSubscriptions(MongoDatabase database, MaterializerOptions options) {
        this(database, options, QUEUE_CAPACITY);
    }

    // Visible for testing: another queue size
    ViewSubscriptions(MongoDatabase database, MaterializerOptions options, int capacity) {
        this.database = database;
        this.views = database.getCollection(options.viewsCollection(), BsonDocument.class);
        this.partitionField = options.partitionField();
        this.statusField = options.statusField();
        this.checkpointsCollection = options.checkpointsCollection();
        this.grace = options.generationGrace();
        this.retryAfter = options.rewatch();
        this.capacity = capacity;
        this.readable = new ReadableGenerations(grace);
        this.reads = new VersionReads(database, partitionField, new RowKeys());
        this.worker = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "materializer-subscriptions");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * The views stream's listener, noting for the subscriptions each view document it hands over
     * after the listener had it.
     * @param listener the catalog
     * @return the listener to give the views stream
     */
    public StreamListener around(StreamListener listener) {
        return new ForwardingStreamListener(listener) {
            @Override
            public void onChange(String collection, SourceChange change) {
                super.onChange(collection, change);
                heard(change);
            }

            @Override
            public void onOpened(String collection, boolean resumed, boolean reopened, Checkpoint from) {
                super.onOpened(collection, resumed, reopened, from);
                if (reopened) {
                    // Events may have gone by unheard: every followed view is read again
                    tracked.values().forEach(partitions -> partitions.values().forEach(ViewSubscriptions.this::refresh));
                }
            }
        };
    }

    private void heard(SourceChange change) {
        if (tracked.isEmpty()) {
            return;
        }
        BsonDocument document = change.fullDocument();
        BsonValue id = switch (change.operation()) {
            case INSERT, UPDATE, REPLACE -> document == null ? null : document.get("_id");
            case DELETE -> change.documentId();
            default -> null;
        };
        if (id == null) {
            // Deleted since the change (its delete follows), or no view's event
            return;
        }
        String text = ViewKey.idText(id);
        if (!tracked.containsKey(text)) {
            return;
        }
        if (heard.put(text, Optional.ofNullable(change.operation() == SourceChange.Operation.DELETE ? null : document))
                == null) {
            submit(() -> applyHeard(text));
        }
    }

    /**
     * Subscribes to a view.
     * @param fromGeneration the generation the subscriber holds, or null to start from now
     * @throws IllegalArgumentException for a blank partition or id, or a negative generation
     * @throws IllegalStateException once closed
     */
    public ViewSubscription subscribe(String partition, String viewId, @Nullable Long fromGeneration,
            ViewSubscriber subscriber) {
        if (partition == null || partition.isEmpty() || viewId == null || viewId.isEmpty()) {
            throw new IllegalArgumentException("a subscription names a partition and a view id (non-empty), got "
                    + partition + " and " + viewId);
        }
        if (fromGeneration != null && fromGeneration < 0) {
            throw new IllegalArgumentException("a subscription resumes from a generation of 0 or more, got "
                    + fromGeneration);
        }
        Objects.requireNonNull(subscriber, "subscriber");
        if (closed) {
            throw new IllegalStateException("the materializer is closed: view " + partition + "/" + viewId
                    + " cannot be followed");
        }
        Subscription subscription = new Subscription(partition, viewId, fromGeneration, subscriber, capacity,
                this::snapshotFor, this::detach,
                "materializer-subscriber-" + threads.incrementAndGet());
        TrackedView[] view = new TrackedView[1];
        tracked.compute(viewId, (id, partitions) -> {
            Map<String, TrackedView> byPartition = partitions == null ? new ConcurrentHashMap<>() : partitions;
            view[0] = byPartition.computeIfAbsent(partition, key -> new TrackedView(partition, viewId));
            view[0].subscribers.add(subscription);
            return byPartition;
        });
        subscription.start();
        submit(() -> join(view[0], subscription));
        return subscription;
    }

    /** Frees a closed subscription; a view left without subscribers is no longer followed. */
    private void detach(Subscription subscription) {
        tracked.computeIfPresent(subscription.viewId(), (id, partitions) -> {
            TrackedView view = partitions.get(subscription.partition());
            if (view != null) {
                view.subscribers.remove(subscription);
                if (view.subscribers.isEmpty()) {
                    partitions.remove(subscription.partition());
                }
            }
            return partitions.isEmpty() ? null : partitions;
        });
    }

    /** Hands a new subscriber its start: a resume with the deltas since its generation, or a snapshot. */
    private void join(TrackedView view, Subscription subscription) {
        if (!view.subscribers.contains(subscription)) {
            // Closed before its start
            return;
        }
        List<ViewRow> fresh;
        try {
            fresh = advance(view, readPoint(view));
        }
        catch (RuntimeException ex) {
            retry(view, "for a new subscriber", ex, () -> join(view, subscription));
            return;
        }
        ViewPoint at = view.point();
        Long from = subscription.resumeFrom();
        SnapshotReason reason = from == null ? SnapshotReason.STARTED : SnapshotReason.NOT_RESUMABLE;
        if (from != null && from == at.number() && !at.legacy()) {
            subscription.offerResumed(from);
            subscription.join();
            return;
        }
        if (from != null && resume(view, at, from, subscription)) {
            subscription.join();
            return;
        }
        List<ViewRow> rows = fresh != null ? fresh : rowsAt(view, at);
        subscription.offer(new ViewRowsSnapshot(view.partition, view.viewId, at.number(), rows, reason));
        subscription.join();
    }

    /**
     * Offers the deltas from a generation a subscriber holds to where the view stands, when they
     * can be proven whole: its versions are kept, and one of them is still there (a view written
     * anew in its place since would have removed them all).
     */
    private boolean resume(TrackedView view, ViewPoint at, long from, Subscription subscription) {
        String target = at.target();
        if (from <= 0 || from > at.number() || at.legacy() || target == null || !kept(at, from)) {
            return false;
        }
        BsonDocument witness = reads.oneOf(target, view.partition, Generation.of(from));
        if (witness == null) {
            // No row at that generation, or none any more: a snapshot cannot be wrong
            return false;
        }
        FlipDeltas deltas = new FlipDeltas(view.partition, view.viewId, from, at.number(), new RowKeys());
        if (!reads.moved(target, view.partition, witness.get("_id"), deltas, from, at.number())) {
            return false;
        }
        subscription.offerResumed(from);
        deltas.deltas().forEach(subscription::offer);
        return true;
    }

    private void applyHeard(String viewId) {
        Optional<BsonDocument> document = heard.remove(viewId);
        Map<String, TrackedView> partitions = tracked.get(viewId);
        if (document == null || partitions == null) {
            return;
        }
        for (TrackedView view : partitions.values()) {
            try {
                advance(view, ViewPoint.of(document.orElse(null), view.partition, partitionField, statusField));
            }
            catch (RuntimeException ex) {
                retry(view, "for its changes", ex, () -> refresh(view));
            }
        }
    }

    /** Reads the view again and hands its subscribers what moved. */
    private void refresh(TrackedView view) {
        submit(() -> {
            if (closed || view.subscribers.isEmpty()) {
                return;
            }
            try {
                advance(view, readPoint(view));
            }
            catch (RuntimeException ex) {
                retry(view, "again", ex, () -> refresh(view));
            }
        });
    }

    /** A read that failed (the deployment, most likely) is tried again on the worker after the rewatch wait. */
    private void retry(TrackedView view, String why, RuntimeException failure, Runnable again) {
        log.warn("View {}/{} could not be read {} ({}); it is tried again in {}", view.partition, view.viewId, why,
                failure.toString(), retryAfter);
        CompletableFuture.delayedExecutor(retryAfter.toMillis(), TimeUnit.MILLISECONDS, this::submit).execute(again);
    }

    /**
     * Moves the view's subscribers to the point a document says: the deltas of every flip since
     * theirs, or a snapshot when they cannot be proven whole.
     * @return the rows read when it read a snapshot, else null
     */
    private @Nullable List<ViewRow> advance(TrackedView view, ViewPoint now) {
        if (!view.started()) {
            List<ViewRow> rows = rowsAt(view, now);
            standAt(view, now, rows);
            return rows;
        }
        ViewPoint was = view.point();
        if (Objects.equals(was.generation(), now.generation()) && Objects.equals(was.target(), now.target())) {
            // The status changed, not the rows
            return null;
        }
        boolean samePlace = was.generation() != null && now.generation() != null && !was.legacy() && !now.legacy()
                && Objects.equals(was.target(), now.target());
        if (samePlace && now.number() < was.number()) {
            // A document read before one already applied
            return null;
        }
        SnapshotReason reason = SnapshotReason.REWRITTEN;
        if (samePlace) {
            if (kept(now, was.number())) {
                List<ViewDelta> deltas = deltas(view, was.number(), now);
                if (deltas != null) {
                    deltas.forEach(delta -> following(view).forEach(subscription -> subscription.offer(delta)));
                    return null;
                }
            }
            else {
                reason = SnapshotReason.FELL_BEHIND;
            }
        }
        List<ViewRow> rows = rowsAt(view, now);
        standAt(view, now, rows);
        ViewRowsSnapshot snapshot = new ViewRowsSnapshot(view.partition, view.viewId, now.number(), rows, reason);
        following(view).forEach(subscription -> subscription.offer(snapshot));
        return rows;
    }

    /** The subscribers that stand where the view stands: joined, not behind, not closed. */
    private static List<Subscription> following(TrackedView view) {
        return view.subscribers.stream().filter(Subscription::following).toList();
    }

    /** The deltas from a generation to a later one in the same place; null when they cannot be proven whole. */
    private @Nullable List<ViewDelta> deltas(TrackedView view, long from, ViewPoint now) {
        String target = Objects.requireNonNull(now.target());
        FlipDeltas deltas = new FlipDeltas(view.partition, view.viewId, from, now.number(), new RowKeys());
        boolean seen = reads.moved(target, view.partition, view.witness(), deltas, from, now.number());
        if (view.rows() > 0 && !seen) {
            // The rows of its generation are gone, not closed: the view was written anew
            return null;
        }
        long rows = view.rows() + deltas.growth();
        BsonDocument visible = deltas.visibleAtEnd();
        if (visible == null && rows > 0) {
            visible = reads.oneOf(target, view.partition, Objects.requireNonNull(now.generation()));
        }
        view.standAt(now, rows, visible == null ? null : visible.get("_id"));
        return deltas.deltas();
    }

    /** Whether every version closed after a generation is still kept, by a margin of a quarter of the grace. */
    private boolean kept(ViewPoint now, long generation) {
        Instant margin = serverNow().plus(grace.dividedBy(4));
        return readable.oldestReadable(now.status(), margin) <= generation;
    }

    private Instant serverNow() {
        Duration known = skew;
        if (known == null) {
            known = ClockSkew.measure(database, checkpointsCollection);
            skew = known;
        }
        return Instant.now().minus(known);
    }

    private List<ViewRow> rowsAt(TrackedView view, ViewPoint point) {
        Generation generation = point.generation();
        String target = point.target();
        return generation == null || target == null ? List.of() : reads.rowsOf(target, view.partition, generation);
    }

    private static void standAt(TrackedView view, ViewPoint point, List<ViewRow> rows) {
        view.standAt(point, rows.size(), rows.isEmpty() ? null : rows.get(0).document().get("_id"));
    }

    private ViewPoint readPoint(TrackedView view) {
        for (BsonDocument document : views.find(new BsonDocument(partitionField, new BsonString(view.partition)))) {
            BsonValue id = document.get("_id");
            if (id != null && ViewKey.idText(id).equals(view.viewId)) {
                return ViewPoint.of(document, view.partition, partitionField, statusField);
            }
        }
        return ViewPoint.NOTHING;
    }

    /** A subscriber that fell behind is ready again: it is handed the rows as its view stands. */
    private void snapshotFor(Subscription subscription) {
        submit(() -> {
            Map<String, TrackedView> partitions = tracked.get(subscription.viewId());
            TrackedView view = partitions == null ? null : partitions.get(subscription.partition());
            if (view == null || !view.started()) {
                return;
            }
            try {
                subscription.offer(new ViewRowsSnapshot(view.partition, view.viewId, view.point().number(),
                        rowsAt(view, view.point()), SnapshotReason.FELL_BEHIND));
            }
            catch (RuntimeException ex) {
                retry(view, "for a subscriber that fell behind", ex, () -> snapshotFor(subscription));
            }
        });
    }

    private void submit(Runnable task) {
        if (closed) {
            return;
        }
        try {
            worker.execute(task);
        }
        catch (RejectedExecutionException ex) {
            // Closed meanwhile
        }
    }

    /**
     * The views followed now, by the text of their id.
     * @return how many partitions of views have subscribers
     */
    // Visible for testing
    int followed() {
        return tracked.values().stream().mapToInt(Map::size).sum();
    }

    /** Whether the worker has nothing queued or running. */
    // Visible for testing
    boolean idle() {
        return worker.getQueue().isEmpty() && worker.getActiveCount() == 0 && heard.isEmpty();
    }

    /** How many worker threads live. */
    // Visible for testing
    int workerThreads() {
        return worker.getPoolSize();
    }

    /** Ends every subscription and the worker, without waiting for a subscriber's call in progress. */
    @Override
    public void close() {
        closed = true;
        tracked.values().forEach(partitions -> partitions.values()
            .forEach(view -> view.subscribers.forEach(subscription -> subscription.end(false))));
        tracked.clear();
        heard.clear();
        worker.shutdownNow();
    }
}
