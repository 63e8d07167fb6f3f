package dev.materializer.core.stream;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import com.mongodb.MongoException;
import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.core.time.Backoff;
import dev.materializer.core.EngineClock;
import dev.materializer.core.time.Durations;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One change stream on one collection, on a thread of its own: it loops on {@code tryNext()},
 * hands each event to its listener, saves its resume token now and then, and — when the stream
 * fails, closes or is invalidated — opens again after {@code rewatch}, backing off up to
 * {@code maxBackoff} while it keeps failing. It resumes from its token unless the server says
 * the token's history is gone ({@link StreamFailures}); then it starts from now and says so.
 *
 * <p>No event over 16 MB breaks it: where the server offers it, large events come split and are
 * put together before the listener hears them, and no token from the middle of one is saved;
 * elsewhere a routing stream's events are projected down to what routing reads
 * ({@link WatchPipeline}), which includes the key paths of the views reading the collection: read at
 * each open, and again after {@link #keptPathsChanged()}, when a cursor whose images lack one of them
 * reopens at once, resuming after the last event its listener took.
 *
 * <p>What it guarantees its listener: it never moves past an event the listener did not take, and
 * the checkpoint it resumes from reaches the listener with the first open the listener hears of —
 * a cursor that failed before it opened (a failover or a cut network at start) tells the listener
 * nothing, so the checkpoint goes with the next open instead of being dropped with the failure. A
 * reopen for more kept paths hands over no event twice and skips none (it resumes from its own
 * position), and is no end ({@link StreamListener#onEnded} is not called).
 *
 * <p>Threads: {@link #start()}, {@link #close()} and {@link #keptPathsChanged()} are called by the
 * engine; everything else runs on the stream's thread, which alone touches the cursor (the driver's
 * cursors are not thread-safe). {@link #close()} and {@link #keptPathsChanged()} set flags the loop
 * sees within one await time.
 */
public final class CollectionStream {

    private static final Logger log = LoggerFactory.getLogger(CollectionStream.class);

    /** How long a {@code tryNext()} may wait on the server for an event. */
    static final Duration AWAIT_TIME = Duration.ofMillis(500);

    /** The pause after an empty, immediate answer, so a server that does not await is not polled in a spin. */
    static final Duration IDLE_PAUSE = Duration.ofMillis(50);

    private final MongoDatabase database;

    private final String collection;

    private final boolean preImages;

    /** The partition field when the listener only routes events; null when it reads whole documents. */
    private final @Nullable String routingField;

    private final Supplier<Set<String>> keptPaths;

    /** The document paths the open cursor's events carry; null while they carry whole documents. */
    private volatile @Nullable Set<String> imagePaths;

    /** The pipeline chosen for the next cursor; null until chosen, and after the server refused one. */
    private volatile WatchPipeline.@Nullable Kind chosen;

    /** Set when the server failed a projected stream while reading it. */
    private volatile boolean projectionRefused;

    /** Set by {@link #keptPathsChanged()}; the loop compares the kept paths with its cursor's. */
    private volatile boolean keptPathsChanged;

    private final @Nullable CheckpointStore checkpoints;

    private final StreamListener listener;

    private final EngineClock clock;

    private final Duration rewatch;

    private final Duration maxBackoff;

    private final Duration checkpointInterval;

    private final CountDownLatch firstOpen = new CountDownLatch(1);

    private volatile boolean closed;

    /** Set by {@link #abandon()}: the loop ends without its last save, as when the process dies. */
    private volatile boolean abandoned;

    private volatile boolean open;

    /**
     * When ({@link System#nanoTime()}) the last poll of the open cursor that found no event began;
     * {@link #caughtUpSince} reads it. Valid only while {@link #polledEmpty}.
     */
    private volatile long lastEmptyPoll;

    /** Whether the open cursor has polled empty at least once; false again while it reopens. */
    private volatile boolean polledEmpty;

    private volatile @Nullable CountDownLatch waiting;

    /**
     * Whether the open cursor resumed from a saved checkpoint at the first open its listener heard of
     * and has not polled empty since: what it hands over now was committed while no stream of this
     * instance read the collection, or about when it opened. {@link #replaying} reads it.
     */
    private volatile boolean replaying;

    /**
     * Where the stream has handed over every event from: the checkpoint it resumed from; for a stream
     * that started from now, a position just past the first event it handed over (null until then).
     * Null again once it starts from now anew. {@link #heardFrom} reads it.
     */
    private volatile @Nullable Checkpoint heardFrom;

    /** The cluster time of the newest event the listener took; {@link #heardAfter} reads it. */
    private volatile @Nullable BsonTimestamp heardThrough;

    /**
     * The id of the newest event handed over before the stream's position, and its cluster time:
     * carried over from the checkpoint it resumed from, saved with each checkpoint so checkpoints of
     * different instances can be ordered ({@link Checkpoint#coversWhatPrecedes}). Null when unknown
     * (started from now). The stream thread's only.
     */
    private @Nullable BsonDocument lastEvent;

    private @Nullable BsonTimestamp lastEventTime;

    private @Nullable Thread thread;

    /**
     * Creates the stream; nothing opens before {@link #start()}.
     * @param database the database
     * @param collection the collection to watch
     * @param preImages whether the collection keeps pre-images (ask for them when available)
     * @param checkpoints where to keep the resume token, or null to always start from now
     * @param listener who hears the events
     * @param clock the clock of the waits before reopening
     * @param rewatch the first wait before reopening
     * @param maxBackoff the longest wait before reopening
     * @param checkpointInterval how often, at most, the token is saved
     */
    public CollectionStream(MongoDatabase database, String collection, boolean preImages,
            @Nullable CheckpointStore checkpoints, StreamListener listener, EngineClock clock, Duration rewatch,
            Duration maxBackoff, Duration checkpointInterval) {
        this(database, collection, preImages, null, checkpoints, listener, clock, rewatch, maxBackoff,
                checkpointInterval);
    }

    /**
     * Creates a stream whose listener only routes events by a partition field: on a server that
     * does not split large events, its events are projected down to what routing reads (see
     * {@link WatchPipeline}), so none is over 16 MB.
     * @param database the database
     * @param collection the collection to watch
     * @param preImages whether the collection keeps pre-images (ask for them when available)
     * @param routingField the partition field routing reads, or null when the listener reads whole
     *     documents
     * @param checkpoints where to keep the resume token, or null to always start from now
     * @param listener who hears the events
     * @param clock the clock of the waits before reopening
     * @param rewatch the first wait before reopening
     * @param maxBackoff the longest wait before reopening
     * @param checkpointInterval how often, at most, the token is saved
     */
    public CollectionStream(MongoDatabase database, String collection, boolean preImages,
            @Nullable String routingField, @Nullable CheckpointStore checkpoints, StreamListener listener,
            EngineClock clock, Duration rewatch, Duration maxBackoff, Duration checkpointInterval) {
        this(database, collection, preImages, routingField, Set::of, checkpoints, listener, clock, rewatch,
                maxBackoff, checkpointInterval);
    }

    /**
     * Creates a routed stream that keeps more of the documents in a projected event.
     * @param keptPaths the document paths a projected event keeps beside the partition field, read at
     *     each open and after {@link #keptPathsChanged()} (the keys of key-scoped views reading the
     *     collection)
     */
    public CollectionStream(MongoDatabase database, String collection, boolean preImages,
            @Nullable String routingField, Supplier<Set<String>> keptPaths,
            @Nullable CheckpointStore checkpoints, StreamListener listener,
            EngineClock clock, Duration rewatch, Duration maxBackoff, Duration checkpointInterval) {
        this.keptPaths = keptPaths;
        this.database = database;
        this.collection = collection;
        this.preImages = preImages;
        this.routingField = routingField;
        this.checkpoints = checkpoints;
        this.listener = listener;
        this.clock = clock;
        this.rewatch = rewatch;
        this.maxBackoff = maxBackoff;
        this.checkpointInterval = checkpointInterval;
    }

    /**
     * Starts the stream's thread and waits (a bounded time) for its first open, so events after
     * this call are not missed when it succeeds.
     * @param openWait how long to wait for the first open
     * @throws InterruptedException when interrupted while waiting
     */
    public void start(Duration openWait) throws InterruptedException {
        Thread loop = new Thread(this::run, "materializer-stream-" + collection);
        loop.setDaemon(true);
        this.thread = loop;
        loop.start();
        firstOpen.await(openWait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Says the kept paths may have changed (a view was added or changed): a projected cursor whose
     * images lack a path the kept paths now name reopens with them, resuming after the last event
     * its listener took — so no event is lost or heard twice. Returns at once; the stream's thread
     * does it between two events. A stream that reads whole images, or keeps the paths already,
     * does nothing.
     */
    public void keptPathsChanged() {
        keptPathsChanged = true;
    }

    /**
     * The document paths the images of the open cursor's events carry, for diagnostics and tests.
     * @return the paths; null while they carry whole documents (or before the first open)
     */
    public @Nullable Set<String> imagePaths() {
        return imagePaths;
    }

    /** Whether a cursor is open now. */
    public boolean isOpen() {
        return open;
    }

    /**
     * Whether the stream heard every event committed before a moment: its cursor is open and a poll
     * that began at or after that moment found nothing more, after every event before it had been
     * handed to the listener. For probes of tests (is an engine quiescent?) and diagnostics.
     * @param nanos a moment in {@link System#nanoTime()}
     * @return true when caught up to that moment
     */
    public boolean caughtUpSince(long nanos) {
        return open && polledEmpty && lastEmptyPoll - nanos >= 0;
    }

    /**
     * Whether the listener took an event of a cluster time after the given one: events come in the
     * order of their cluster times, so every event up to it was handed over before. Answers for a
     * stream that never idles, where {@link #caughtUpSince} would wait for a pause.
     * @param clusterTime the cluster time
     * @return true when a later event was handed over
     */
    public boolean heardAfter(BsonTimestamp clusterTime) {
        BsonTimestamp heard = heardThrough;
        return heard != null && heard.compareTo(clusterTime) > 0;
    }

    /**
     * Whether the listener has every event committed before a moment: a poll that began after it came
     * back empty ({@link #caughtUpSince}), or, when the caller knows a cluster time at or after those
     * events, an event after it was handed over ({@link #heardAfter}).
     * @param sinceNanos the moment, in {@link System#nanoTime()}
     * @param clusterTime a cluster time at or after the events in question, when known
     * @return true when every such event was handed over
     */
    public boolean heardEverythingBefore(long sinceNanos, @Nullable BsonTimestamp clusterTime) {
        return caughtUpSince(sinceNanos) || (clusterTime != null && heardAfter(clusterTime));
    }

    /**
     * Whether the stream replays: it resumed from a saved checkpoint at the first open its listener
     * heard of, and has handed over every event since without a poll that found nothing — so the
     * events it hands over now were mostly committed before it opened, when another instance may have
     * applied them. Ends at the first empty poll, or when the cursor ends. Read on the stream's own
     * thread (by its listener) it says it of the event being handed over.
     * @return true while it replays
     */
    public boolean replaying() {
        return replaying;
    }

    /**
     * Where the stream has handed every event over from, as a position other checkpoints can be
     * ordered against ({@link Checkpoint#coversWhatPrecedes}): the checkpoint it resumed from at its
     * first open; for a stream started from now, a position just past the first event it handed over
     * (every event after its start is at or after that one). Its reopenings resume from their own
     * position, so it stands until the stream starts from now anew.
     * @return the position; null before a stream started from now handed an event over
     */
    public @Nullable Checkpoint heardFrom() {
        return heardFrom;
    }

    /** The watched collection. */
    public String collection() {
        return collection;
    }

    /** Asks the loop to end; it closes its cursor and saves its token. */
    public void close() {
        closed = true;
        CountDownLatch latch = waiting;
        if (latch != null) {
            latch.countDown();
        }
    }

    /**
     * Ends the loop without saving its token again: what a crash of the process leaves behind.
     * Tests use it to stand in for a killed instance.
     */
    public void abandon() {
        abandoned = true;
        close();
    }

    /**
     * Waits for the loop to end after {@link #close()}.
     * @param timeout the longest wait
     * @throws InterruptedException when interrupted while waiting
     */
    public void awaitClosed(Duration timeout) throws InterruptedException {
        Thread loop = thread;
        if (loop != null) {
            loop.join(Math.max(1, timeout.toMillis()));
        }
    }

    private void run() {
        Checkpoint saved = Checkpoint.NONE;
        if (checkpoints != null) {
            try {
                saved = checkpoints.load(collection);
            }
            catch (MongoException ex) {
                log.warn("The checkpoint of {} could not be read, the stream starts from now: {}", collection,
                        ex.getMessage());
            }
        }
        BsonDocument token = saved.token();
        heardFrom = token == null ? null : saved;
        lastEvent = saved.lastEvent();
        lastEventTime = saved.lastEventTime();
        // Handed over with every open until the listener has been told of one: a cursor that failed
        // before it opened told it nothing, and what the checkpoint leaves to catch up is still to do.
        Checkpoint from = saved;
        boolean reopened = false;
        int failures = 0;
        while (!closed) {
            Outcome outcome = serve(token, reopened, from);
            firstOpen.countDown();
            token = outcome.token();
            if (outcome.told()) {
                from = Checkpoint.NONE;
            }
            if (closed) {
                break;
            }
            if (outcome.reprojected()) {
                // Not an end: it resumes at once after the last event handed over, keeping more of them.
                reopened = true;
                failures = 0;
                continue;
            }
            failures = outcome.servedEvents() ? 1 : failures + 1;
            if (outcome.historyLost()) {
                token = null;
                heardFrom = null;
                lastEvent = null;
                lastEventTime = null;
                // It no longer resumes from the checkpoint: the listener catches up everything instead.
                from = Checkpoint.NONE;
                if (checkpoints != null) {
                    checkpoints.clear(collection);
                }
            }
            safely(() -> listener.onEnded(collection, outcome.reason(), outcome.historyLost()));
            Duration wait = backoff(failures);
            log.warn("The change stream of {} {}: it opens again in {}", collection, outcome.reason(),
                    Durations.text(wait));
            await(wait);
            reopened = true;
        }
        open = false;
        firstOpen.countDown();
    }

    private Duration backoff(int failures) {
        // Jittered: the streams of several instances that lost one primary do not reopen in step.
        return Backoff.jittered(failures, rewatch, maxBackoff, Backoff.RANDOM);
    }

    /** Serves one cursor until it ends; says why it ended and where it stood. */
    private Outcome serve(@Nullable BsonDocument token, boolean reopened, Checkpoint from) {
        try {
            return readChangeStream(token, reopened, from);
        }
        finally {
            open = false;
            polledEmpty = false;
            replaying = false;
        }
    }

    /**
     * Opens a cursor and reads it until it ends. Where the cursor stands is this method's to keep,
     * step after step, so that a failure at any step ends it where the steps before left it.
     */
    private Outcome readChangeStream(@Nullable BsonDocument token, boolean reopened, Checkpoint from) {
        Progress progress = new Progress(token, false, false, clock.now());
        WatchPipeline.Kind kind = null;
        try {
            kind = pipeline();
            try (MongoChangeStreamCursor<BsonDocument> cursor = watch(kind, token)) {
                progress = opened(progress, token != null, reopened, from);
                SplitEvents fragments = new SplitEvents();
                while (!closed) {
                    if (keptPathsChanged && mustReproject(kind, progress.position())) {
                        return reprojected(progress);
                    }
                    long started = System.nanoTime();
                    BsonDocument received = cursor.tryNext();
                    if (received == null) {
                        progress = polledNothing(cursor, fragments, progress, started);
                        progress = saveIfDue(progress, checkpointWanted());
                        pauseIfNotAwaited(started);
                        continue;
                    }
                    BsonDocument event = fragments.add(received);
                    if (event == null) {
                        // More fragments of this event come: neither route nor save before the last.
                        continue;
                    }
                    progress = progress.serving();
                    Step step = processChangeStreamDocument(event, progress);
                    Outcome end = step.end();
                    if (end != null) {
                        return end;
                    }
                    progress = step.progress();
                    progress = saveIfDue(progress, false);
                }
                return closedAt(progress);
            }
        }
        catch (MongoException ex) {
            return errorHandled(ex, kind, progress);
        }
        catch (RuntimeException ex) {
            return progress.end(false, "failed: " + ex);
        }
    }

    /** Opens a cursor with the pipeline of its kind, resuming after the token when there is one. */
    private MongoChangeStreamCursor<BsonDocument> watch(WatchPipeline.Kind kind, @Nullable BsonDocument token) {
        Set<String> kept = kind == WatchPipeline.Kind.PROJECTED ? keptPaths.get() : Set.of();
        imagePaths = kind == WatchPipeline.Kind.PROJECTED && routingField != null
                ? WatchPipeline.imagePaths(routingField, kept) : null;
        ChangeStreamIterable<BsonDocument> iterable = database.getCollection(collection, BsonDocument.class)
            .watch(WatchPipeline.stages(kind, routingField, kept))
            .fullDocument(FullDocument.UPDATE_LOOKUP)
            .maxAwaitTime(AWAIT_TIME.toMillis(), TimeUnit.MILLISECONDS)
            .batchSize(1000);
        if (preImages) {
            iterable = iterable.fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE);
        }
        if (token != null) {
            iterable = iterable.resumeAfter(token);
        }
        // The raw event, not the driver's decoded one: servers differ in the fields they send.
        return (MongoChangeStreamCursor<BsonDocument>) iterable
            .withDocumentClass(BsonDocument.class)
            .cursor();
    }

    /**
     * The cursor is open: its listener hears so, with the checkpoint it resumes from, and then the
     * one who started the stream.
     */
    private Progress opened(Progress progress, boolean resumed, boolean reopened, Checkpoint from) {
        open = true;
        replaying = resumed && from.token() != null;
        safely(() -> listener.onOpened(collection, resumed, reopened, from));
        // Only now: the one who started the stream sees it open and its listener told.
        firstOpen.countDown();
        return progress.toldOpen();
    }

    /** Ends the cursor to reopen it at once with the kept paths its images lack. */
    private Outcome reprojected(Progress progress) {
        log.info("The change stream of {} reopens to keep the key paths {} in its events (a view reading"
                + " it was added or changed)", collection, keptPaths.get());
        return new Outcome(progress.position(), false, progress.servedEvents(), progress.told(), "reprojected", true);
    }

    /**
     * A poll that began at {@code started} found no event: every event before it has been handed
     * over, the stream replays no more, and it stands at the cursor's token.
     */
    private Progress polledNothing(MongoChangeStreamCursor<BsonDocument> cursor, SplitEvents fragments,
            Progress progress, long started) {
        lastEmptyPoll = started;
        polledEmpty = true;
        replaying = false;
        BsonDocument idleToken = cursor.getResumeToken();
        // A token between two fragments would resume in the middle of an event.
        if (idleToken != null && !fragments.inTheMiddle()) {
            return progress.at(idleToken);
        }
        return progress;
    }

    /** Pauses after a poll that answered at once, so a server that does not await is not polled in a spin. */
    private static void pauseIfNotAwaited(long started) {
        if (System.nanoTime() - started < IDLE_PAUSE.toNanos()) {
            // Real time, not the engine clock: this only spaces out polls of a server that does not await.
            LockSupport.parkNanos(IDLE_PAUSE.toNanos());
        }
    }

    /**
     * Hands a whole event over and moves past it. Ends the cursor when the stream closed while the
     * event waited, and at an event that ends the stream.
     */
    private Step processChangeStreamDocument(BsonDocument event, Progress progress) {
        SourceChange change = handOver(event);
        if (change == null) {
            // Closed while the event waited: the token stays before it, so a restart reads it again.
            return new Step(progress, closedAt(progress));
        }
        BsonTimestamp time = change.clusterTime();
        heard(time);
        SourceChange.Operation operation = change.operation();
        if (endsTheStream(operation)) {
            // The history before a drop or an invalidate cannot be resumed into: start from now.
            return new Step(progress, new Outcome(null, true, progress.servedEvents(), progress.told(),
                    "ended (" + operation.name().toLowerCase() + ")", false));
        }
        BsonDocument eventToken = event.getDocument("_id", null);
        Progress past = eventToken != null ? progress.at(eventToken) : progress;
        lastEvent = eventToken;
        lastEventTime = time;
        if (heardFrom == null && eventToken != null) {
            // Started from now: every event from this first one on is handed over
            heardFrom = Checkpoint.at(eventToken, Set.of(), Set.of()).withLastEvent(eventToken, time);
        }
        return new Step(past, null);
    }

    /** Notes the cluster time of an event the listener took, when it is the newest so far. */
    private void heard(@Nullable BsonTimestamp time) {
        BsonTimestamp before = heardThrough;
        if (time != null && (before == null || time.compareTo(before) > 0)) {
            heardThrough = time;
        }
    }

    /** Ends the cursor as the stream closes: its position is saved a last time. */
    private Outcome closedAt(Progress progress) {
        saveIfDue(progress, true);
        return progress.end(false, "closed");
    }

    /** How a failure the server reported ends the cursor, and whether it loses the position. */
    private Outcome errorHandled(MongoException ex, WatchPipeline.@Nullable Kind kind, Progress progress) {
        if (closed) {
            return progress.end(false, "closed");
        }
        StreamFailures.Next next = StreamFailures.next(ex);
        if (!StreamFailures.isTransient(ex)) {
            refused(kind, next);
        }
        // Only the server's word loses the position: a failover before the first event after a
        // resume (NotPrimary, recovering, network) keeps the token and resumes after the backoff.
        return switch (next) {
            case HISTORY_LOST -> progress.end(true, "failed: " + ex.getMessage());
            case EVENT_TOO_LARGE -> progress.end(true,
                    "failed on an event over 16 MB, which no resume can read past: " + ex.getMessage());
            case RESUME -> progress.end(false,
                    (StreamFailures.isTransient(ex) ? "failed for a while: " : "failed: ") + ex.getMessage());
        };
    }

    /**
     * Hands an event to the listener until it takes it, backing off between tries: the stream never
     * moves past an event its listener did not take. Gives the change, or null when closed first.
     */
    private @Nullable SourceChange handOver(BsonDocument event) {
        for (int attempt = 1; !closed; attempt++) {
            try {
                SourceChange change = ChangeEvents.toSourceChange(event, imagePaths);
                listener.onChange(collection, change);
                return change;
            }
            catch (RuntimeException ex) {
                Duration wait = backoff(attempt);
                if (attempt == 1) {
                    log.error("An event of {} could not be handled; it is handed over again in {}", collection, Durations.text(wait), ex);
                }
                else {
                    log.warn("An event of {} could still not be handled ({}); again in {}", collection, ex, Durations.text(wait));
                }
                await(wait);
            }
        }
        return null;
    }

    /**
     * The pipeline of the next cursor: chosen by trying what the server offers, once, and again
     * after a cursor the server refused.
     */
    private WatchPipeline.Kind pipeline() {
        WatchPipeline.Kind kind = chosen;
        if (kind != null) {
            return kind;
        }
        boolean split = CapabilityDetector.splitLargeEvents(database, collection);
        boolean projection = !split && routingField != null && !projectionRefused
                && CapabilityDetector.opensChangeStream(database, collection,
                        WatchPipeline.stages(WatchPipeline.Kind.PROJECTED, routingField));
        kind = WatchPipeline.choose(split, projection, routingField);
        if (kind == WatchPipeline.Kind.PLAIN && routingField != null) {
            log.info("The change stream of {} reads whole events: this server neither splits large events nor"
                    + " projects them; an event over 16 MB makes its views catch up", collection);
        }
        chosen = kind;
        return kind;
    }

    /**
     * A failure that will repeat: choose the pipeline again at the next open. A projection the
     * server accepted at open but failed on while reading is not tried again on this stream.
     */
    private void refused(WatchPipeline.@Nullable Kind kind, StreamFailures.Next next) {
        if (kind == WatchPipeline.Kind.PROJECTED && next == StreamFailures.Next.RESUME) {
            projectionRefused = true;
        }
        chosen = null;
    }

    /** The pipeline of the stream's cursor. */
    // Visible for testing
    WatchPipeline.@Nullable Kind chosenPipeline() {
        return chosen;
    }

    private static boolean endsTheStream(SourceChange.Operation operation) {
        return switch (operation) {
            case INVALIDATE, DROP, DROP_DATABASE, RENAME -> true;
            default -> false;
        };
    }

    /** Whether the listener wants a checkpoint before the interval has passed; a failure of its own says no. */
    private boolean checkpointWanted() {
        try {
            return listener.checkpointWanted(collection);
        }
        catch (RuntimeException ex) {
            log.debug("Whether to save the checkpoint of {} early is unknown: {}", collection, ex.toString());
            return false;
        }
    }

    private Progress saveIfDue(Progress progress, boolean force) {
        BsonDocument position = progress.position();
        if (checkpoints == null || position == null || abandoned) {
            return progress;
        }
        Instant now = clock.now();
        if (!force && Duration.between(progress.lastSave(), now).compareTo(checkpointInterval) < 0) {
            return progress;
        }
        Checkpoint checkpoint;
        try {
            checkpoint = listener.checkpointAt(collection, position).withLastEvent(lastEvent, lastEventTime);
        }
        catch (RuntimeException ex) {
            log.warn("The pending partitions of {} are unknown, the checkpoint waits: {}", collection, ex.toString());
            return progress;
        }
        checkpoints.save(collection, checkpoint, now.toEpochMilli());
        return progress.savedAt(now);
    }

    /** Waits on the engine clock, so tests move time by hand; {@link #close()} cuts the wait short. */
    private void await(Duration delay) {
        CountDownLatch latch = new CountDownLatch(1);
        waiting = latch;
        EngineClock.Timer timer = clock.schedule(delay, latch::countDown);
        try {
            if (!closed) {
                latch.await();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            closed = true;
        }
        finally {
            timer.cancel();
            waiting = null;
        }
    }

    private void safely(Runnable call) {
        try {
            call.run();
        }
        catch (RuntimeException ex) {
            log.error("The handler of the stream of {} failed; the stream goes on", collection, ex);
        }
    }

    /**
     * Whether the open cursor must reopen for paths asked since it opened: it is projected, its
     * images lack a path now kept, and it has a position to resume from (without one it waits for
     * its first token: until then its events name no key it lacks, see {@code AffectedKeys}).
     */
    private boolean mustReproject(WatchPipeline.Kind kind, @Nullable BsonDocument position) {
        Set<String> carried = imagePaths;
        if (kind != WatchPipeline.Kind.PROJECTED || carried == null || routingField == null) {
            keptPathsChanged = false;
            return false;
        }
        if (position == null) {
            return false;
        }
        keptPathsChanged = false;
        return !WatchPipeline.covers(carried, WatchPipeline.imagePaths(routingField, keptPaths.get()));
    }

    /**
     * How one cursor ended.
     * @param told whether it opened and its listener was told so ({@link StreamListener#onOpened})
     * @param reprojected whether it ended only to reopen at once with more kept paths
     */
    private record Outcome(@Nullable BsonDocument token, boolean historyLost, boolean servedEvents, boolean told,
            String reason, boolean reprojected) {
    }

    /**
     * Where one cursor stands, passed from step to step of {@link #readChangeStream}: the position it
     * resumes from, whether it handed events over, whether its listener was told it opened, and when
     * its checkpoint was last saved (or, before any save, when it began).
     */
    private record Progress(@Nullable BsonDocument position, boolean servedEvents, boolean told, Instant lastSave) {

        Progress at(BsonDocument newPosition) {
            return new Progress(newPosition, servedEvents, told, lastSave);
        }

        Progress serving() {
            return new Progress(position, true, told, lastSave);
        }

        Progress toldOpen() {
            return new Progress(position, servedEvents, true, lastSave);
        }

        Progress savedAt(Instant saved) {
            return new Progress(position, servedEvents, told, saved);
        }

        /** How the cursor ends where it stands. */
        Outcome end(boolean historyLost, String reason) {
            return new Outcome(position, historyLost, servedEvents, told, reason, false);
        }
    }

    /** What one event did: where the cursor stands after it, and how the cursor ended when it did. */
    private record Step(Progress progress, @Nullable Outcome end) {
    }
}
