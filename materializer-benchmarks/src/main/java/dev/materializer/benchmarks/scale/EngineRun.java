package dev.materializer.benchmarks.scale;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.event.CommandListener;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassReport;
import dev.materializer.core.engine.EngineDiagnostics;
import dev.materializer.core.engine.ViewMaterializer;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;

/**
 * One engine under measurement: its own client (counting commands), a manual clock (no debounce,
 * retry or heartbeat timer fires unless the report moves it, so nothing runs behind a
 * measurement's back), and a listener that counts passes and lets a measurement wait for a view's
 * pass or hold a pass.
 *
 * <p>Shared with the cost report ({@code dev.materializer.benchmarks.cost}), which names its own
 * database and adds command listeners of its own to the engine's client.
 */
public final class EngineRun implements AutoCloseable {

    /** The longest the report waits for any one thing; a wait that runs out is reported, never hangs. */
    public static final Duration WAIT = Duration.ofMinutes(10);

    public final CommandCounter commands = new CommandCounter();

    public final MongoClient client;

    public final MongoDatabase database;

    public final ManualClock clock;

    public final Listener listener = new Listener();

    public final MaterializerOptions options;

    public final ViewMaterializer engine;

    EngineRun(InProcessMongo mongo, MaterializerOptions base) {
        this(mongo, base, Fleet.DATABASE, Fleet.INSTANCE);
    }

    /**
     * An engine on a database of its choosing, under an instance id of its choosing, whose client
     * also tells the given listeners of every command it sends (after the run's own counter).
     */
    public EngineRun(InProcessMongo mongo, MaterializerOptions base, String databaseName, String instanceId,
            CommandListener... extraListeners) {
        this(mongo, base, databaseName, instanceId, new ManualClock(), extraListeners);
    }

    /**
     * As above, on a clock shared with other engines: instances of one cluster whose timers (debounces,
     * heartbeats, checkpoints) move together when the measurement moves that one clock.
     */
    public EngineRun(InProcessMongo mongo, MaterializerOptions base, String databaseName, String instanceId,
            ManualClock clock, CommandListener... extraListeners) {
        this.clock = clock;
        CommandListener[] listeners = new CommandListener[extraListeners.length + 1];
        listeners[0] = commands;
        System.arraycopy(extraListeners, 0, listeners, 1, extraListeners.length);
        this.client = mongo.client(listeners);
        this.database = client.getDatabase(databaseName);
        this.options = base.toBuilder().instanceId(instanceId).clock(clock).listener(listener).build();
        this.engine = new ViewMaterializer(client, databaseName, options);
    }

    /** The options every engine of the report starts from: the defaults. */
    public static MaterializerOptions baseOptions() {
        return MaterializerOptions.defaults();
    }

    /** The longest a change waits for its pass (as the engine computes it), plus a millisecond. */
    Duration pastMaxDelay() {
        return EngineDiagnostics.maxDelay(options.debounce()).plusMillis(1);
    }

    /** Starts the engine and waits until it says it runs. */
    public boolean startAndAwaitRunning() throws InterruptedException {
        engine.start();
        return listener.running.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean drain() throws InterruptedException {
        return engine.drain(WAIT);
    }

    @Override
    public void close() {
        engine.close();
        client.close();
    }

    /** Counts passes and changes (in all, and by source); holds or awaits passes on request. */
    public static final class Listener implements MaterializerListener {

        public final CountDownLatch running = new CountDownLatch(1);

        public final AtomicLong passesStarted = new AtomicLong();

        public final AtomicLong passesFinished = new AtomicLong();

        public final AtomicLong changes = new AtomicLong();

        /** The changes heard, by source collection. */
        public final Map<String, LongAdder> changesBySource = new ConcurrentHashMap<>();

        private final Map<ViewKey, CompletableFuture<PassReport>> awaited = new ConcurrentHashMap<>();

        private volatile @Nullable Consumer<ViewKey> onStart;

        private volatile @Nullable Consumer<PassReport> onFinish;

        @Override
        public void onStateChanged(EngineState state, @Nullable String reason) {
            if (state == EngineState.RUNNING) {
                running.countDown();
            }
        }

        @Override
        public void onChange(String source, @Nullable Duration lag) {
            changes.incrementAndGet();
            changesBySource.computeIfAbsent(source, name -> new LongAdder()).increment();
        }

        /** The changes heard from one source so far. */
        public long changesOf(String source) {
            LongAdder count = changesBySource.get(source);
            return count == null ? 0 : count.sum();
        }

        @Override
        public void onPassStarted(ViewKey view) {
            passesStarted.incrementAndGet();
            Consumer<ViewKey> hook = onStart;
            if (hook != null) {
                hook.accept(view);
            }
        }

        @Override
        public void onPassFinished(PassReport report) {
            passesFinished.incrementAndGet();
            Consumer<PassReport> hook = onFinish;
            if (hook != null) {
                hook.accept(report);
            }
            CompletableFuture<PassReport> future = awaited.remove(report.view());
            if (future != null) {
                future.complete(report);
            }
        }

        /** A future of the next pass of a view; ask before the pass can start. */
        public CompletableFuture<PassReport> nextPassOf(ViewKey view) {
            return awaited.computeIfAbsent(view, key -> new CompletableFuture<>());
        }

        /** Runs on every pass start, on the pass's thread (null: none). */
        public void onPassStart(@Nullable Consumer<ViewKey> hook) {
            this.onStart = hook;
        }

        /** Runs on every pass end, on the pass's thread, before a waiter of the view's pass is told (null: none). */
        public void onPassFinish(@Nullable Consumer<PassReport> hook) {
            this.onFinish = hook;
        }
    }
}
