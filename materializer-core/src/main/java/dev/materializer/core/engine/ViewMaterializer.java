package dev.materializer.core.engine;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.EngineClock;
import dev.materializer.core.EngineClosedException;
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
import dev.materializer.core.ViewState;
import dev.materializer.core.ViewSubscriber;
import dev.materializer.core.ViewSubscription;
import dev.materializer.core.cluster.OwnedPartitions;
import dev.materializer.core.cluster.PartitionOwnership;
import dev.materializer.core.server.EngineConcerns;
import dev.materializer.core.server.EngineIndexes;
import dev.materializer.core.subscribe.ViewSubscriptions;
import dev.materializer.core.time.Backoff;
import dev.materializer.core.time.Durations;
import dev.materializer.core.time.SystemClock;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every view's target equal to the result of its pipeline, for every partition, from change
 * streams: the engine facade. It owns the lifecycle and starts in two phases: it detects the
 * deployment ({@link Deployment}: what the server can do, the clock's skew), then builds the
 * running engine from what it found ({@link RunningEngine}, the one composition root, every part
 * final). A start that fails drops that engine and tries again with backoff, detecting again.
 *
 * <pre>{@code
 * ViewMaterializer views = new ViewMaterializer(client, "shop", MaterializerOptions.defaults());
 * views.start();
 * ...
 * views.stop();
 * }</pre>
 *
 * <p>Before the running engine is built (and after a failed start dropped it), the engine answers
 * as one that has no views: empty snapshots and pages, nothing in flight, nothing to catch up.
 *
 * <p>Threads: {@link #start()} returns at once and starts on a thread of its own, retrying with
 * backoff while MongoDB cannot be reached; each change stream has its reader thread; timers run on
 * the clock's thread; passes on a pool of {@code maxConcurrentPasses} threads, one partition at a
 * time per partition. The control methods may be called from any thread; the state changes, and
 * which running engine is current, under the lifecycle's monitor.
 */
public final class ViewMaterializer implements Materializer {

    private static final Logger log = LoggerFactory.getLogger(ViewMaterializer.class);

    private final MaterializerOptions options;

    private final EngineClock clock;

    private final @Nullable SystemClock ownedClock;

    private final EngineLifecycle lifecycle;

    private final EngineBasis basis;

    private final ViewSubscriptions subscriptions;

    /** Lets a test hold a stream's hand-over of events. */
    // Visible for testing
    private final HandOverGate handOvers = new HandOverGate();

    /** The engine of the current start; null before one is built and after a failed start dropped it. */
    private volatile @Nullable RunningEngine engine;

    private boolean intakeStopped;

    private EngineClock.@Nullable Timer retry;

    private int failedStarts;

    /**
     * Creates the engine; nothing runs and nothing is asked of MongoDB before {@link #start()}.
     * @param client the application's client
     * @param database the database of the views, sources and targets
     * @param options the options
     */
    public ViewMaterializer(MongoClient client, String database, MaterializerOptions options) {
        // On the primary with majority concerns, whatever the client's defaults (EngineConcerns says why).
        MongoDatabase engineDatabase = EngineConcerns.database(client, database);
        this.options = options;
        if (options.clock() == null) {
            this.ownedClock = new SystemClock();
            this.clock = ownedClock;
        }
        else {
            this.ownedClock = null;
            this.clock = options.clock();
        }
        MaterializerListener listener = new SafeListener(options.listener());
        this.lifecycle = new EngineLifecycle(listener);
        this.subscriptions = new ViewSubscriptions(engineDatabase, options);
        this.basis = new EngineBasis(client, engineDatabase, options, clock, listener, lifecycle, subscriptions,
                handOvers);
    }

    @Override
    public void start() {
        synchronized (lifecycle) {
            if (lifecycle.state() != EngineState.NEW) {
                throw new IllegalStateException("the materializer was already started (it is " + lifecycle.state() + ")");
            }
            lifecycle.set(EngineState.STARTING, "connecting to MongoDB");
        }
        startThread();
    }

    private void startThread() {
        Thread starter = new Thread(this::attemptStart, "materializer-start");
        starter.setDaemon(true);
        starter.start();
    }

    /** One attempt: detect the deployment, build the running engine for it, open it. */
    private void attemptStart() {
        synchronized (lifecycle) {
            if (lifecycle.stopping()) {
                return;
            }
        }
        try {
            Deployment deployment = Deployment.detect(basis.client(), basis.database(), options);
            EngineIndexes.ensure(basis.database(), options.viewsCollection(), options.partitionField(),
                    options.checkpointsCollection());
            RunningEngine built = new RunningEngine(basis, deployment);
            if (!install(built)) {
                built.abandon(false);
                return;
            }
            built.open();
            synchronized (lifecycle) {
                if (lifecycle.state() == EngineState.STARTING || lifecycle.state() == EngineState.RETRYING) {
                    failedStarts = 0;
                    lifecycle.set(EngineState.RUNNING, null);
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

    /** Makes the engine current unless the close began; a stop of intake asked for before holds for it too. */
    private boolean install(RunningEngine built) {
        synchronized (lifecycle) {
            if (lifecycle.stopping()) {
                return false;
            }
            engine = built;
            if (intakeStopped) {
                built.stopIntake();
            }
            lifecycle.notifyAll();
            return true;
        }
    }

    private void retryStart(RuntimeException failure) {
        RunningEngine dropped;
        synchronized (lifecycle) {
            if (lifecycle.stopping()) {
                // The close closes the engine it found.
                return;
            }
            failedStarts++;
            Duration wait = Backoff.jittered(failedStarts, options.rewatch(), options.maxBackoff(), Backoff.RANDOM);
            String why = "cannot start: " + failure.getMessage();
            dropped = engine;
            engine = null;
            lifecycle.set(EngineState.RETRYING, why);
            log.warn("The materializer {}; it tries again in {}", why, Durations.text(wait));
            retry = clock.schedule(wait, this::startThread);
        }
        if (dropped != null) {
            // As a crash: what it heard and did not apply is in no checkpoint it saved, so the next start catches it up.
            dropped.abandon(false);
        }
    }

    /** The engine of the current start; for the diagnostics and the tests' probes, which run it first. */
    RunningEngine running() {
        RunningEngine current = engine;
        if (current == null) {
            throw new IllegalStateException("the materializer has no running engine (it is " + lifecycle.state() + ")");
        }
        return current;
    }

    @Override
    public void stopIntake() {
        RunningEngine current;
        synchronized (lifecycle) {
            intakeStopped = true;
            current = engine;
        }
        if (current != null) {
            current.stopIntake();
        }
    }

    @Override
    public boolean drain(Duration timeout) throws InterruptedException {
        RunningEngine current = engine;
        return current == null || current.drain(timeout);
    }

    @Override
    public int inFlight() {
        RunningEngine current = engine;
        return current == null ? 0 : current.inFlight();
    }

    @Override
    public boolean caughtUp() {
        RunningEngine current = engine;
        return current == null || current.caughtUp();
    }

    /**
     * Stops the engine. Every step runs even when one before it throws (a client closed under the
     * engine throws from every call): intake stops, the instance leaves, the streams close and save
     * their last checkpoints with every mark still pending, the lanes stop. Never throws.
     */
    @Override
    public void close() {
        RunningEngine current;
        synchronized (lifecycle) {
            if (lifecycle.state() == EngineState.STOPPED) {
                return;
            }
            lifecycle.set(EngineState.STOPPING, "closing");
            if (retry != null) {
                retry.cancel();
            }
            current = engine;
        }
        if (current != null) {
            current.close();
        }
        else {
            RunningEngine.quietly("end the subscriptions", subscriptions::close);
        }
        synchronized (lifecycle) {
            lifecycle.set(EngineState.STOPPED, "closed");
        }
        if (ownedClock != null) {
            RunningEngine.quietly("stop the clock", ownedClock::close);
        }
    }

    /**
     * Stops as a killed process would: no last checkpoint, no leave, queued work dropped; passes
     * already running finish on their own, as in-flight writes of a dying process may land.
     */
    // Visible for testing
    void crash() {
        RunningEngine current;
        synchronized (lifecycle) {
            lifecycle.set(EngineState.STOPPED, "crashed");
            if (retry != null) {
                retry.cancel();
            }
            current = engine;
        }
        if (current != null) {
            current.abandon(true);
        }
        else {
            subscriptions.close();
        }
        if (ownedClock != null) {
            ownedClock.close();
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
        return picture(true);
    }

    @Override
    public MaterializerSnapshot summary() {
        return picture(false);
    }

    private MaterializerSnapshot picture(boolean allViews) {
        RunningEngine current = engine;
        if (current == null) {
            return new MaterializerSnapshot(lifecycle.state(), lifecycle.reason(), 0, 0, null, false, List.of());
        }
        return current.picture(allViews);
    }

    @Override
    public Map<ViewState, Integer> viewCounts() {
        RunningEngine current = engine;
        return current == null ? noViews() : current.viewCounts();
    }

    @Override
    public Map<ViewState, Integer> ownedViewCounts() {
        RunningEngine current = engine;
        return current == null ? noViews() : current.ownedViewCounts();
    }

    private static Map<ViewState, Integer> noViews() {
        Map<ViewState, Integer> none = new EnumMap<>(ViewState.class);
        for (ViewState state : ViewState.values()) {
            none.put(state, 0);
        }
        return none;
    }

    @Override
    public int watchedStreams() {
        RunningEngine current = engine;
        return current == null ? 0 : current.watchedStreams();
    }

    @Override
    public ViewPage views(ViewQuery query) {
        RunningEngine current = engine;
        return current == null ? ViewPage.of(List.of(), query) : current.views(query);
    }

    @Override
    public Optional<ViewSnapshot> view(String partition, String id) {
        RunningEngine current = engine;
        return current == null ? Optional.empty() : current.view(partition, id);
    }

    @Override
    public CompletableFuture<PassReport> refresh(String partition, String id) {
        return onView(partition, id, RunningEngine::refresh);
    }

    @Override
    public CompletableFuture<VerifyReport> verify(String partition, String id) {
        return onView(partition, id, RunningEngine::verify);
    }

    /**
     * Runs an action on one view in the running engine it was found in, or says why it cannot run.
     * One read of the current engine: a retry that replaces it meanwhile does not split the two.
     */
    private <T> CompletableFuture<T> onView(String partition, String id,
            BiFunction<RunningEngine, ViewDefinition, CompletableFuture<T>> action) {
        RunningEngine current = engine;
        ViewDefinition view = current == null ? null : current.find(partition, id);
        CompletableFuture<T> refused = refusal(view, partition, id);
        if (refused != null) {
            return refused;
        }
        // No refusal: the view was found, so in this engine
        return action.apply(Objects.requireNonNull(current), Objects.requireNonNull(view));
    }

    /** Why an action on one view cannot run now (unknown view, engine not running), or null when it can. */
    private <T> @Nullable CompletableFuture<T> refusal(@Nullable ViewDefinition view, String partition, String id) {
        if (view == null) {
            return CompletableFuture.failedFuture(
                    new NoSuchElementException("no view '" + id + "' in partition '" + partition + "'"));
        }
        EngineState now = lifecycle.state();
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

    @Override
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        RunningEngine current = awaitEngine(deadline);
        return current != null && current.awaitIdle(remaining(deadline));
    }

    @Override
    public boolean awaitFresh(String partition, String id, Duration timeout) throws InterruptedException {
        return awaitFresh(partition, id, null, null, timeout);
    }

    @Override
    public boolean awaitFresh(String partition, String id, @Nullable String collection,
            @Nullable BsonTimestamp operationTime, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        RunningEngine current = awaitEngine(deadline);
        return current != null && current.awaitFresh(partition, id, collection, operationTime, remaining(deadline));
    }

    /**
     * The running engine, once a start built one: a wait that begins while the engine starts waits
     * for it, as it waits for the engine's streams. Null when none came before the deadline or the
     * engine closed.
     */
    private @Nullable RunningEngine awaitEngine(long deadline) throws InterruptedException {
        synchronized (lifecycle) {
            while (engine == null && !lifecycle.stopping()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                TimeUnit.NANOSECONDS.timedWait(lifecycle, left);
            }
            return engine;
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** The beats of this instance; for {@link EngineDiagnostics} and tests of several instances. */
    PartitionOwnership ownership() {
        return running().ownership();
    }

    /** Which partitions this instance owns now; for {@link EngineDiagnostics} and tests of several instances. */
    OwnedPartitions owned() {
        return running().owned();
    }

    /** The gate every stream's events pass. */
    // Visible for testing
    HandOverGate handOvers() {
        return handOvers;
    }

    /** The listener of the source streams, for {@link EngineDiagnostics}. */
    SourceFeed sourceFeed() {
        return running().sourceFeed();
    }
}
