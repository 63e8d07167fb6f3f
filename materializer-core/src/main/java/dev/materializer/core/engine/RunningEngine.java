package dev.materializer.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import com.mongodb.client.MongoDatabase;
import dev.materializer.core.EngineClock;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.ViewState;
import dev.materializer.core.cluster.InstanceHeartbeats;
import dev.materializer.core.cluster.OwnedPartitions;
import dev.materializer.core.cluster.PartitionOwnership;
import dev.materializer.core.freshness.FreshnessWaits;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.reconcile.Reconciler;
import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.server.ClusterTime;
import dev.materializer.core.subscribe.ViewSubscriptions;
import dev.materializer.core.stream.CheckpointStore;
import dev.materializer.core.stream.CollectionStream;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.write.LeftPlaces;
import dev.materializer.core.write.LostStatus;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.ViewRunner;
import dev.materializer.core.write.WriteSettings;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine as it runs on one deployment: the composition root, built in one step once the start
 * has detected the deployment ({@link Deployment}), with every part final and handed what it needs
 * at construction. {@link ViewMaterializer} builds one per attempt to start, and drops it when the
 * attempt fails.
 *
 * <p>What it guarantees:
 * <ol>
 *   <li>Every part is built before any runs: nothing is set after construction, and no part reaches
 *       another through the facade.</li>
 *   <li>{@link #open()} opens in the order that loses no change: the views stream before the views are
 *       read, the ownership known before the first rebalance, the source streams open before the
 *       others may hand this instance partitions.</li>
 *   <li>{@link #close()} runs every step even when one throws, and the streams save their last
 *       checkpoints with every mark still pending; {@link #abandon()} saves nothing and leaves no
 *       one, as a killed process would, so the next start catches up from the last saved checkpoint.</li>
 * </ol>
 *
 * <p>Threads: built and opened on the facade's start thread; its operations are called from any
 * thread and reach parts whose own comments say which threads touch them.
 */
final class RunningEngine {

    private static final Logger log = LoggerFactory.getLogger(RunningEngine.class);

    private static final Duration OPEN_WAIT = Duration.ofSeconds(10);

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final MaterializerOptions options;

    private final EngineLifecycle lifecycle;

    private final boolean transactions;

    private final ViewRegistry registry;

    private final PartitionLanes lanes;

    private final OwnedPartitions owned;

    private final ViewRunner runner;

    private final PassExecution passes;

    private final PassScheduler scheduler;

    private final SourceFeed feed;

    private final PartitionOwnership ownership;

    private final LeftRowsCleanup leftRows;

    private final ViewCatalog catalog;

    private final CollectionStream viewsStream;

    private final EngineFreshness freshnessProbe;

    private final FreshnessWaits freshness;

    private final Reconciler reconciler;

    private final ViewSubscriptions subscriptions;

    RunningEngine(EngineBasis basis, Deployment deployment) {
        MaterializerOptions options = basis.options();
        MongoDatabase database = basis.database();
        EngineClock clock = basis.clock();
        MaterializerListener listener = basis.listener();
        EngineLifecycle lifecycle = basis.lifecycle();
        WriteSettings write = EngineSettings.write(options);
        this.options = options;
        this.lifecycle = lifecycle;
        this.transactions = deployment.transactions();
        this.subscriptions = basis.subscriptions();
        this.registry = new ViewRegistry(options.partitionField());
        HeardChanges heard = new HeardChanges(HeardChanges.CoveredLookup.of(registry));
        this.lanes = new PartitionLanes(options.maxConcurrentPasses());
        this.owned = new OwnedPartitions(options.instanceId());
        StatusStore status = new StatusStore(database, write);
        this.runner = new ViewRunner(database, transactions ? basis.client() : null, write,
                new ScopeGuard(options.partitionField()), new RowHasher());
        this.passes = new PassExecution(registry, runner, status, new LostStatus(database, write), clock, listener,
                options, owned::owns, new GraceSweeps(clock, lanes, registry, runner, lifecycle::running)::after,
                lifecycle::stopping, heard);
        this.scheduler = new PassScheduler(clock, options.debounce(), maxDelay(options.debounce()), options.rewatch(),
                options.maxConcurrentPasses(), lanes, passes);
        this.feed = new SourceFeed(database, registry, basis.handOvers().around(SourceFeed.Routing.of(
                new PartitionRouter(options.partitionField(), options.storageSources()), registry)), scheduler,
                new CheckpointStore(database, options.checkpointsCollection(), options.instanceId(),
                        owned::liveInstances, options.partitionLease()),
                clock, options, listener, status, owned::owns, owned::liveInstances, heard, deployment.skew());
        this.ownership = new PartitionOwnership(owned, new InstanceHeartbeats(database, options.checkpointsCollection(),
                options.instanceId(), options.partitionLease()), clock, options.partitionLease(), registry::partitions,
                catchUps(feed, scheduler));
        this.leftRows = new LeftRowsCleanup(new LeftPlaces(database, options.checkpointsCollection()), clock, lanes,
                registry, owned::owns, runner, lifecycle::running, options);
        this.catalog = new ViewCatalog(database, registry, status, passes, lanes, feed, clock, options, scheduler,
                leftRows);
        this.viewsStream = new CollectionStream(database, options.viewsCollection(), false, null,
                basis.handOvers().around(basis.subscriptions().around(catalog)), clock, options.rewatch(),
                options.maxBackoff(), SourceFeed.CHECKPOINT_INTERVAL);
        this.freshnessProbe = new EngineFreshness(registry, feed, scheduler, owned, status,
                viewsStream::heardEverythingBefore, catalog::applying);
        this.freshness = new FreshnessWaits(freshnessProbe, freshnessProbe);
        this.reconciler = new Reconciler(clock, options.reconcileInterval(), options.reconcileMaxPerSecond(),
                new Reconciliation(registry, passes, scheduler, lanes, status, clock, listener, owned::owns, runner,
                        freshnessProbe, () -> ClusterTime.now(basis.client(), database)));
    }

    /** The longest a change waits for its pass while its partition never goes quiet. */
    static Duration maxDelay(Duration debounce) {
        Duration tenTimes = debounce.multipliedBy(10);
        return tenTimes.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenTimes;
    }

    /**
     * Partitions this instance takes over: every view of each runs that may have changes its previous
     * owner did not apply ({@link HeardChanges}). Marked with the scheduler (even while stopping), so
     * every checkpoint names them until they ran.
     */
    private static Consumer<Set<String>> catchUps(SourceFeed feed, PassScheduler scheduler) {
        return partitions -> {
            // Before the marks: what checkpoints saved since the streams started answer for is known to their passes
            feed.answerFromCheckpoints(partitions);
            partitions.forEach(scheduler::markHandover);
        };
    }

    /**
     * Opens the engine: the views stream, then the views, then the ownership and the timers.
     * @throws com.mongodb.MongoException when the deployment fails on the way; the caller abandons this engine
     */
    void open() throws InterruptedException {
        // The stream opens before the read, so no change of a view falls between them.
        viewsStream.start(OPEN_WAIT);
        // Which partitions are this instance's, before the first rebalance decides what runs.
        ownership.refresh();
        catalog.loadAll();
        // The source streams are open: the others may hand partitions over now.
        ownership.ready();
        ownership.start();
        reconciler.start();
        leftRows.start();
        log.info("The materializer runs: {} view(s), {} source stream(s)", registry.ids().size(), feed.openStreams());
    }

    void stopIntake() {
        scheduler.stopIntake();
    }

    /** Closes every part in the order that keeps every mark: see the class comment. Never throws. */
    void close() {
        quietly("stop intake", this::stopIntake);
        quietly("stop the reconciler", reconciler::close);
        quietly("stop removing left rows", leftRows::close);
        // Leaving first lets the others take this instance's partitions at their next beat.
        quietly("leave", ownership::close);
        quietly("close the views stream", viewsStream::close);
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
    }

    /**
     * Stops as a killed process would: no last checkpoint, no leave, queued work dropped; passes
     * already running finish on their own, as in-flight writes of a dying process may land.
     * @param endSubscriptions whether the subscriptions end too (a crash), or live on into the next start
     */
    void abandon(boolean endSubscriptions) {
        quietly("stop the reconciler", reconciler::close);
        quietly("stop removing left rows", leftRows::close);
        if (endSubscriptions) {
            quietly("end the subscriptions", subscriptions::close);
        }
        quietly("stop beating", ownership::stopBeating);
        quietly("close the views stream", viewsStream::close);
        quietly("abandon the source streams", feed::abandon);
        quietly("stop the passes", lanes::close);
    }

    static void quietly(String step, Runnable action) {
        try {
            action.run();
        }
        catch (RuntimeException ex) {
            log.warn("While closing, could not {}: {}", step, ex.toString());
        }
    }

    int inFlight() {
        return lanes.inFlight();
    }

    boolean drain(Duration timeout) throws InterruptedException {
        return lanes.awaitIdle(timeout);
    }

    boolean caughtUp() {
        // In flight first: cheap, and the usual answer while busy; then the marks of every partition.
        return lanes.inFlight() == 0 && registry.partitions().stream().noneMatch(scheduler::isPending);
    }

    /** A picture of the engine in a state, with these views. */
    MaterializerSnapshot picture(boolean allViews) {
        List<ViewSnapshot> views = allViews ? registry.snapshot() : List.of();
        boolean viewsOpen = viewsStream.isOpen();
        int open = feed.openStreams() + (viewsOpen ? 1 : 0);
        EngineState now = lifecycle.state();
        String why = lifecycle.reason();
        if (now == EngineState.RUNNING) {
            // Running, but a stream that is reopening misses changes until it is back: say which.
            List<String> closed = new ArrayList<>(feed.closedStreams());
            if (!viewsOpen) {
                closed.add(0, options.viewsCollection());
            }
            why = closed.isEmpty() ? null : "change streams reopening: " + String.join(", ", closed);
        }
        return new MaterializerSnapshot(now, why, open, lanes.inFlight(), feed.lag(), transactions, views,
                reconciler.progress(), scheduler.catchUpProgress());
    }

    Map<ViewState, Integer> viewCounts() {
        return registry.countByState();
    }

    Map<ViewState, Integer> ownedViewCounts() {
        // By the counters of each partition: a scrape visits partitions, not views.
        return registry.countByState(owned::owns);
    }

    int watchedStreams() {
        return feed.openStreams() + feed.closedStreams().size() + 1;
    }

    ViewPage views(ViewQuery query) {
        // A partition asked for is answered from its index; otherwise every view is a candidate.
        return ViewPage.of(query.partition() == null ? registry.snapshot() : registry.snapshot(query.partition()), query);
    }

    Optional<ViewSnapshot> view(String partition, String id) {
        return Optional.ofNullable(registry.snapshotOf(partition, id));
    }

    @Nullable ViewDefinition find(String partition, String id) {
        return registry.find(partition, id);
    }

    /** Runs a view now in its partition's lane, and marks again what must run again. */
    CompletableFuture<PassReport> refresh(ViewDefinition view) {
        return lanes.submit(view.partition(), () -> {
            PassExecution.Refreshed refreshed = passes.refresh(view);
            scheduler.retry(view.partition(), refreshed.retries());
            return refreshed.report();
        });
    }

    CompletableFuture<VerifyReport> verify(ViewDefinition view) {
        return lanes.submit(view.partition(), () -> runner.verify(view, false));
    }

    boolean awaitIdle(Duration timeout) throws InterruptedException {
        return FreshnessWaits.awaitIdle(since -> lifecycle.running() && streamsBehind(since).isEmpty(),
                this::caughtUp, timeout);
    }

    boolean awaitFresh(String partition, String id, @Nullable String collection,
            @Nullable BsonTimestamp operationTime, Duration timeout) throws InterruptedException {
        return freshness.awaitFresh(partition, id, collection, operationTime, timeout);
    }

    /**
     * The watched collections, the views collection among them, whose stream has not heard every
     * event committed before a moment.
     * @param sinceNanos the moment, in {@link System#nanoTime()}
     */
    List<String> streamsBehind(long sinceNanos) {
        List<String> behind = new ArrayList<>();
        if (!viewsStream.caughtUpSince(sinceNanos)) {
            behind.add(options.viewsCollection());
        }
        behind.addAll(feed.streamsBehind(sinceNanos));
        return behind;
    }

    /** Which partitions this instance runs; for tests of several instances and the diagnostics. */
    OwnedPartitions owned() {
        return owned;
    }

    /** The beats of this instance; for tests of several instances and the diagnostics. */
    PartitionOwnership ownership() {
        return ownership;
    }

    /** The lanes of the partitions' work. */
    // Visible for testing
    PartitionLanes lanes() {
        return lanes;
    }

    /** What a wait for freshness reads of this engine. */
    // Visible for testing
    EngineFreshness freshnessProbe() {
        return freshnessProbe;
    }

    /** The scheduler, whose backlog says what is marked, armed and running. */
    // Visible for testing
    PassScheduler scheduler() {
        return scheduler;
    }

    /** The listener of the source streams; for the diagnostics and the tests' probes. */
    SourceFeed sourceFeed() {
        return feed;
    }
}
