package dev.materializer.core.engine;

import dev.materializer.core.EngineState;
import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.ViewSubscriber;
import dev.materializer.core.ViewSubscription;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.cluster.InstanceHeartbeats;
import dev.materializer.core.cluster.PartitionOwnership;
import dev.materializer.core.freshness.FreshnessWaits;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.EngineClosedException;
import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.reconcile.Reconciler;
import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.core.server.ClockSkew;
import dev.materializer.core.subscribe.ViewSubscriptions;
import dev.materializer.core.server.ClusterTime;
import dev.materializer.core.server.EngineConcerns;
import dev.materializer.core.server.EngineIndexes;
import dev.materializer.core.server.ServerCapabilities;
import dev.materializer.core.stream.CheckpointStore;
import dev.materializer.core.stream.CollectionStream;
import dev.materializer.core.time.Backoff;
import dev.materializer.core.EngineClock;
import dev.materializer.core.time.Durations;
import dev.materializer.core.time.SystemClock;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewState;
import dev.materializer.core.write.LeftPlaces;
import dev.materializer.core.write.LostStatus;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.ViewRunner;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every view's target equal to the result of its pipeline, for every partition, from change
 * streams: the engine facade. It composes the parts and owns their lifecycle; the work is done by
 * the parts ({@link ViewCatalog}, {@link SourceFeed}, {@link PassScheduler}, {@link PassExecution},
 * {@link ViewRunner}).
 *
 * <pre>{@code
 * ViewMaterializer views = new ViewMaterializer(client, "shop", MaterializerOptions.defaults());
 * views.start();
 * ...
 * views.stop();
 * }</pre>
 *
 * <p>Threads: {@link #start()} returns at once and starts on a thread of its own, retrying with
 * backoff while MongoDB cannot be reached; each change stream has its reader thread; timers run on
 * the clock's thread; passes on a pool of {@code maxConcurrentPasses} threads, one partition at a
 * time per partition. The control methods may be called from any thread.
 */
public final class ViewMaterializer implements Materializer {

    private static final Logger log = LoggerFactory.getLogger(ViewMaterializer.class);

    private static final Duration OPEN_WAIT = Duration.ofSeconds(10);

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final MongoClient client;

    private final MongoDatabase database;

    private final MaterializerOptions options;

    private final EngineClock clock;

    private final @Nullable SystemClock ownedClock;

    private final MaterializerListener listener;

    private final ViewRegistry registry;

    private final PartitionLanes lanes;

    private final PassScheduler scheduler;

    private final PassExecution passes;

    private final StatusStore status;

    private final SourceFeed feed;

    private final ViewCatalog catalog;

    private final LeftRowsCleanup leftRows;

    private final PartitionOwnership ownership;

    /** What the streams heard of every partition, owned or not: what a handover must run. */
    private final HeardChanges heard;

    private final Reconciler reconciler;

    private final FreshnessWaits freshness;

    private final EngineFreshness freshnessProbe;

    private final ViewSubscriptions subscriptions;

    /** Visible for testing: lets a test hold a stream's hand-over of events. */
    private final HandOverGate handOvers = new HandOverGate();

    private final Object lifecycle = new Object();

    private volatile EngineState state = EngineState.NEW;

    private volatile @Nullable String reason;

    private volatile boolean transactions;

    private volatile @Nullable ViewRunner runner;

    private volatile @Nullable CollectionStream viewsStream;

    private EngineClock.@Nullable Timer retry;

    private int failedStarts;

    /**
     * Creates the engine; nothing runs before {@link #start()}.
     * @param client the application's client
     * @param database the database of the views, sources and targets
     * @param options the options
     */
    public ViewMaterializer(MongoClient client, String database, MaterializerOptions options) {
        this.client = client;
        // On the primary with majority concerns, whatever the client's defaults (EngineConcerns says why).
        this.database = EngineConcerns.database(client, database);
        this.options = options;
        if (options.clock() == null) {
            this.ownedClock = new SystemClock();
            this.clock = ownedClock;
        }
        else {
            this.ownedClock = null;
            this.clock = options.clock();
        }
        this.listener = new SafeListener(options.listener());
        this.registry = new ViewRegistry(options.partitionField());
        this.heard = new HeardChanges(HeardChanges.CoveredLookup.of(registry));
        this.lanes = new PartitionLanes(options.maxConcurrentPasses());
        this.ownership = new PartitionOwnership(options.instanceId(), new InstanceHeartbeats(this.database,
                options.checkpointsCollection(), options.instanceId(), options.partitionLease()), clock,
                options.partitionLease(), registry::partitions, this::catchUp);
        this.status = new StatusStore(this.database, EngineSettings.write(options));
        this.passes = new PassExecution(registry, status, new LostStatus(this.database, EngineSettings.write(options)), clock, listener, options,
                ownership::owns, new GraceSweeps(clock, lanes, registry, () -> runner,
                        () -> state == EngineState.RUNNING)::after,
                () -> state == EngineState.STOPPING || state == EngineState.STOPPED, heard);
        this.scheduler = new PassScheduler(clock, options.debounce(), maxDelay(options.debounce()), options.rewatch(),
                options.maxConcurrentPasses(), lanes, passes);
        this.feed = new SourceFeed(this.database, registry, handOvers.around(SourceFeed.Routing.of(
                new PartitionRouter(options.partitionField(), options.storageSources()), registry)), scheduler,
                new CheckpointStore(this.database, options.checkpointsCollection(), options.instanceId(),
                        ownership::liveInstances),
                clock, options, listener, status, ownership::owns, ownership::liveInstances, heard);
        this.leftRows = new LeftRowsCleanup(new LeftPlaces(this.database, options.checkpointsCollection()), clock,
                lanes, registry, ownership::owns, () -> runner, () -> state == EngineState.RUNNING, options);
        this.subscriptions = new ViewSubscriptions(this.database, options);
        this.catalog = new ViewCatalog(this.database, registry, status, passes, lanes, feed, clock, options, scheduler,
                leftRows);
        this.freshnessProbe = new EngineFreshness(registry, feed, scheduler, ownership, status, this::definitionsHeard,
                catalog::applying);
        this.freshness = new FreshnessWaits(freshnessProbe, freshnessProbe);
        this.reconciler = new Reconciler(clock, options.reconcileInterval(), options.reconcileMaxPerSecond(),
                new Reconciliation(registry, passes, scheduler, lanes, status, clock, listener, ownership::owns,
                        () -> runner, freshnessProbe, () -> ClusterTime.now(client, this.database)));
    }

    /** The listener of the source streams, for {@link EngineDiagnostics}. */
    SourceFeed sourceFeed() {
        return feed;
    }

    /** The longest a change waits for its pass while its partition never goes quiet. */
    static Duration maxDelay(Duration debounce) {
        Duration tenTimes = debounce.multipliedBy(10);
        return tenTimes.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenTimes;
    }

    @Override
    public void start() {
        synchronized (lifecycle) {
            if (state != EngineState.NEW) {
                throw new IllegalStateException("the materializer was already started (it is " + state + ")");
            }
            setState(EngineState.STARTING, "connecting to MongoDB");
        }
        Thread starter = new Thread(this::attemptStart, "materializer-start");
        starter.setDaemon(true);
        starter.start();
    }

    private void attemptStart() {
        synchronized (lifecycle) {
            if (state == EngineState.STOPPING || state == EngineState.STOPPED) {
                return;
            }
        }
        try {
            ServerCapabilities capabilities = CapabilityDetector.detect(client, database, options.checkpointsCollection());
            transactions = capabilities.transactions();
            log.info("MongoDB {}: transactions {}; views are written {}; change events over 16 MB {}",
                    capabilities.version() == null ? "(version unknown)" : capabilities.version(),
                    transactions ? "available" : "not available",
                    transactions ? "in one transaction for a diff of up to " + options.maxTransactionRows()
                            + " changed rows, else in groups" : "in groups",
                    capabilities.splitLargeEvents() ? "come split and are put together" : "are not split");
            feed.skew(ClockSkew.measure(database, options.checkpointsCollection()));
            EngineIndexes.ensure(database, options.viewsCollection(), options.partitionField(),
                    options.checkpointsCollection());
            ViewRunner viewRunner = new ViewRunner(database, transactions ? client : null, EngineSettings.write(options),
                    new ScopeGuard(options.partitionField()), new RowHasher());
            runner = viewRunner;
            passes.useRunner(viewRunner);
            CollectionStream stream = new CollectionStream(database, options.viewsCollection(), false, null,
                    handOvers.around(subscriptions.around(catalog)),
                    clock, options.rewatch(), options.maxBackoff(), SourceFeed.CHECKPOINT_INTERVAL);
            synchronized (lifecycle) {
                if (state == EngineState.STOPPING || state == EngineState.STOPPED) {
                    return;
                }
                viewsStream = stream;
            }
            // The stream opens before the read, so no change of a view falls between them.
            stream.start(OPEN_WAIT);
            // Which partitions are this instance's, before the first rebalance decides what runs.
            ownership.refresh();
            catalog.loadAll();
            // The source streams are open: the others may hand partitions over now.
            ownership.ready();
            ownership.start();
            reconciler.start();
            leftRows.start();
            synchronized (lifecycle) {
                if (state == EngineState.STARTING || state == EngineState.RETRYING) {
                    failedStarts = 0;
                    setState(EngineState.RUNNING, null);
                    log.info("The materializer runs: {} view(s), {} source stream(s)", registry.ids().size(),
                            feed.openStreams());
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (RuntimeException ex) {
            retryStart(ex);
        }
    }

    private void retryStart(RuntimeException failure) {
        synchronized (lifecycle) {
            if (state == EngineState.STOPPING || state == EngineState.STOPPED) {
                return;
            }
            failedStarts++;
            Duration wait = Backoff.jittered(failedStarts, options.rewatch(), options.maxBackoff(), Backoff.RANDOM);
            String why = "cannot start: " + failure.getMessage();
            setState(EngineState.RETRYING, why);
            log.warn("The materializer {}; it tries again in {}", why, Durations.text(wait));
            closeViewsStream();
            retry = clock.schedule(wait, () -> {
                Thread again = new Thread(this::attemptStart, "materializer-start");
                again.setDaemon(true);
                again.start();
            });
        }
    }

    /**
     * Partitions this instance takes over: every view of each runs that may have changes its previous
     * owner did not apply ({@link HeardChanges}). Marked with the scheduler (even while stopping), so
     * every checkpoint names them until they ran.
     */
    private void catchUp(java.util.Set<String> partitions) {
        // Before the marks: what checkpoints saved since the streams started answer for is known to their passes
        feed.answerFromCheckpoints(partitions);
        partitions.forEach(scheduler::markHandover);
    }

    @Override
    public void stopIntake() {
        scheduler.stopIntake();
    }

    @Override
    public boolean drain(Duration timeout) throws InterruptedException {
        return lanes.awaitIdle(timeout);
    }

    @Override
    public int inFlight() {
        return lanes.inFlight();
    }

    @Override
    public boolean caughtUp() {
        // In flight first: cheap, and the usual answer while busy; then the marks of every partition.
        return lanes.inFlight() == 0 && registry.partitions().stream().noneMatch(scheduler::isPending);
    }

    /**
     * Stops the engine. Every step runs even when one before it throws (a client closed under the
     * engine throws from every call): intake stops, the instance leaves, the streams close and save
     * their last checkpoints with every mark still pending, the lanes stop. Never throws.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (state == EngineState.STOPPED) {
                return;
            }
            setState(EngineState.STOPPING, "closing");
            if (retry != null) {
                retry.cancel();
            }
        }
        quietly("stop intake", this::stopIntake);
        quietly("stop the reconciler", reconciler::close);
        quietly("stop removing left rows", leftRows::close);
        // Leaving first lets the others take this instance's partitions at their next beat.
        quietly("leave", ownership::close);
        quietly("close the views stream", this::closeViewsStream);
        // After the views stream: no change is heard for them any more
        quietly("end the subscriptions", subscriptions::close);
        quietly("close the source streams", () -> {
            try {
                feed.close(CLOSE_WAIT);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        quietly("stop the passes", lanes::close);
        synchronized (lifecycle) {
            setState(EngineState.STOPPED, "closed");
        }
        if (ownedClock != null) {
            quietly("stop the clock", ownedClock::close);
        }
    }

    private static void quietly(String step, Runnable action) {
        try {
            action.run();
        }
        catch (RuntimeException ex) {
            log.warn("While closing, could not {}: {}", step, ex.toString());
        }
    }

    /**
     * Stops as a killed process would: no last checkpoint, no leave, queued work dropped. For tests
     * of crashes; passes already running finish on their own, as in-flight writes of a dying
     * process may land.
     */
    void crash() {
        synchronized (lifecycle) {
            setState(EngineState.STOPPED, "crashed");
            if (retry != null) {
                retry.cancel();
            }
        }
        reconciler.close();
        leftRows.close();
        subscriptions.close();
        ownership.stopBeating();
        closeViewsStream();
        feed.abandon();
        lanes.close();
        if (ownedClock != null) {
            ownedClock.close();
        }
    }

    private void closeViewsStream() {
        CollectionStream stream;
        synchronized (lifecycle) {
            stream = viewsStream;
            viewsStream = null;
        }
        if (stream != null) {
            stream.close();
        }
    }

    @Override
    public ViewSubscription subscribe(String partition, String viewId, ViewSubscriber subscriber) {
        return subscriptions.subscribe(partition, viewId, null, subscriber);
    }

    @Override
    public ViewSubscription subscribe(String partition, String viewId, long fromGeneration, ViewSubscriber subscriber) {
        return subscriptions.subscribe(partition, viewId, fromGeneration, subscriber);
    }

    @Override
    public MaterializerSnapshot snapshot() {
        return picture(registry.snapshot());
    }

    @Override
    public MaterializerSnapshot summary() {
        return picture(java.util.List.of());
    }

    @Override
    public java.util.Map<ViewState, Integer> viewCounts() {
        return registry.countByState();
    }

    @Override
    public java.util.Map<ViewState, Integer> ownedViewCounts() {
        // By the counters of each partition: a scrape visits partitions, not views.
        return registry.countByState(ownership::owns);
    }

    @Override
    public int watchedStreams() {
        return feed.openStreams() + feed.closedStreams().size() + (viewsStream != null ? 1 : 0);
    }

    @Override
    public ViewPage views(ViewQuery query) {
        // A partition asked for is answered from its index; otherwise every view is a candidate.
        return ViewPage.of(query.partition() == null ? registry.snapshot() : registry.snapshot(query.partition()), query);
    }

    @Override
    public java.util.Optional<ViewSnapshot> view(String partition, String id) {
        return java.util.Optional.ofNullable(registry.snapshotOf(partition, id));
    }

    private MaterializerSnapshot picture(java.util.List<ViewSnapshot> views) {
        CollectionStream stream = viewsStream;
        boolean viewsOpen = stream != null && stream.isOpen();
        int open = feed.openStreams() + (viewsOpen ? 1 : 0);
        EngineState now = state;
        String why = reason;
        if (now == EngineState.RUNNING) {
            // Running, but a stream that is reopening misses changes until it is back: say which.
            java.util.List<String> closed = new java.util.ArrayList<>(feed.closedStreams());
            if (stream != null && !viewsOpen) {
                closed.add(0, options.viewsCollection());
            }
            why = closed.isEmpty() ? null : "change streams reopening: " + String.join(", ", closed);
        }
        return new MaterializerSnapshot(now, why, open, lanes.inFlight(), feed.lag(), transactions, views,
                reconciler.progress(), scheduler.catchUpProgress());
    }

    @Override
    public CompletableFuture<PassReport> refresh(String partition, String id) {
        ViewDefinition view = registry.find(partition, id);
        CompletableFuture<PassReport> refused = refusal(view, partition, id);
        if (refused != null) {
            return refused;
        }
        return lanes.submit(partition, () -> {
            PassExecution.Refreshed refreshed = passes.refresh(view);
            scheduler.retry(partition, refreshed.retries());
            return refreshed.report();
        });
    }

    @Override
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return FreshnessWaits.awaitIdle(since -> state == EngineState.RUNNING && streamsBehind(since).isEmpty(),
                this::caughtUp, timeout);
    }

    @Override
    public boolean awaitFresh(String partition, String id, Duration timeout) throws InterruptedException {
        return freshness.awaitFresh(partition, id, null, null, timeout);
    }

    @Override
    public boolean awaitFresh(String partition, String id, @Nullable String collection,
            @Nullable BsonTimestamp operationTime, Duration timeout) throws InterruptedException {
        return freshness.awaitFresh(partition, id, collection, operationTime, timeout);
    }

    @Override
    public CompletableFuture<VerifyReport> verify(String partition, String id) {
        ViewDefinition view = registry.find(partition, id);
        CompletableFuture<VerifyReport> refused = refusal(view, partition, id);
        if (refused != null) {
            return refused;
        }
        // Running means the writer is set: it is chosen before the engine says so.
        ViewRunner current = java.util.Objects.requireNonNull(runner, "the writer of a running engine");
        return lanes.submit(partition, () -> current.verify(view, false));
    }

    /** Why an action on one view cannot run now (unknown view, engine not running), or null when it can. */
    private <T> @Nullable CompletableFuture<T> refusal(@Nullable ViewDefinition view, String partition, String id) {
        if (view == null) {
            return CompletableFuture.failedFuture(
                    new NoSuchElementException("no view '" + id + "' in partition '" + partition + "'"));
        }
        EngineState now = state;
        if (now == EngineState.STOPPING || now == EngineState.STOPPED) {
            // As work queued before the close ends: one cause, whichever side of the close the call fell on.
            return CompletableFuture.failedFuture(new EngineClosedException("the engine closed (" + now
                    + "): view '" + id + "' of partition '" + partition + "' did not run"));
        }
        if (now != EngineState.RUNNING) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("the materializer is not running (" + now + ")"));
        }
        return null;
    }

    /** Which partitions this instance runs; for tests of several instances. */
    PartitionOwnership ownership() {
        return ownership;
    }

    /** The lanes of the partitions' work; for tests (EngineProbe). */
    PartitionLanes lanes() {
        return lanes;
    }

    /** What a wait for freshness reads of this engine; for tests (EngineProbe). */
    EngineFreshness freshnessProbe() {
        return freshnessProbe;
    }

    /** The gate every stream's events pass; for tests (EngineProbe). */
    HandOverGate handOvers() {
        return handOvers;
    }

    /** The scheduler, whose backlog says what is marked, armed and running; for tests (EngineProbe). */
    PassScheduler scheduler() {
        return scheduler;
    }

    /**
     * The document paths the open cursor of a source's stream keeps in its images; null for whole
     * images or no open cursor. For tests (EngineProbe).
     */
    java.util.@Nullable Set<String> imagePaths(String collection) {
        return feed.imagePaths(collection);
    }

    /**
     * The watched collections, the views collection among them, whose stream has not heard every
     * event committed before a moment; for tests (EngineProbe).
     * @param sinceNanos the moment, in {@link System#nanoTime()}
     */
    java.util.List<String> streamsBehind(long sinceNanos) {
        java.util.List<String> behind = new java.util.ArrayList<>();
        CollectionStream stream = viewsStream;
        if (stream == null || !stream.caughtUpSince(sinceNanos)) {
            behind.add(options.viewsCollection());
        }
        behind.addAll(feed.streamsBehind(sinceNanos));
        return behind;
    }

    /**
     * Whether the views stream handed the catalog every change of a view document committed before a
     * moment: a poll that began after it came back empty, or it handed over a later event.
     */
    private boolean definitionsHeard(long sinceNanos, @Nullable BsonTimestamp clusterTime) {
        CollectionStream stream = viewsStream;
        return stream != null
                && (stream.caughtUpSince(sinceNanos) || (clusterTime != null && stream.heardAfter(clusterTime)));
    }

    private void setState(EngineState next, @Nullable String why) {
        state = next;
        reason = why;
        listener.onStateChanged(next, why);
    }
}
