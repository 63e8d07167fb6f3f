package dev.materializer.benchmarks.scale;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassReport;
import dev.materializer.core.ScaleProbe;
import dev.materializer.core.ViewMaterializer;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.view.ViewKey;
import org.jspecify.annotations.Nullable;

/**
 * One engine under measurement: its own client (counting commands), a manual clock (no debounce,
 * retry or heartbeat timer fires unless the report moves it, so nothing runs behind a
 * measurement's back), and a listener that counts passes and lets a measurement wait for a view's
 * pass or hold a pass.
 */
final class EngineRun implements AutoCloseable {

    /** The longest the report waits for any one thing; a wait that runs out is reported, never hangs. */
    static final Duration WAIT = Duration.ofMinutes(10);

    final CommandCounter commands = new CommandCounter();

    final MongoClient client;

    final MongoDatabase database;

    final ManualClock clock = new ManualClock();

    final Listener listener = new Listener();

    final MaterializerOptions options;

    final ViewMaterializer engine;

    EngineRun(InProcessMongo mongo, MaterializerOptions base) {
        this.client = mongo.client(commands);
        this.database = client.getDatabase(Fleet.DATABASE);
        this.options = base.toBuilder().instanceId(Fleet.INSTANCE).clock(clock).listener(listener).build();
        this.engine = new ViewMaterializer(client, Fleet.DATABASE, options);
    }

    /** The options every engine of the report starts from: the defaults. */
    static MaterializerOptions baseOptions() {
        return MaterializerOptions.defaults();
    }

    /** The longest a change waits for its pass (as the engine computes it), plus a millisecond. */
    Duration pastMaxDelay() {
        return ScaleProbe.maxDelay(options.debounce()).plusMillis(1);
    }

    /** Starts the engine and waits until it says it runs. */
    boolean startAndAwaitRunning() throws InterruptedException {
        engine.start();
        return listener.running.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    boolean drain() throws InterruptedException {
        return engine.drain(WAIT);
    }

    @Override
    public void close() {
        engine.close();
        client.close();
    }

    /** Counts passes; holds or awaits them on request. */
    static final class Listener implements MaterializerListener {

        final CountDownLatch running = new CountDownLatch(1);

        final AtomicLong passesStarted = new AtomicLong();

        final AtomicLong passesFinished = new AtomicLong();

        final AtomicLong changes = new AtomicLong();

        private final Map<ViewKey, CompletableFuture<PassReport>> awaited = new ConcurrentHashMap<>();

        private volatile @Nullable Consumer<ViewKey> onStart;

        @Override
        public void onStateChanged(EngineState state, @Nullable String reason) {
            if (state == EngineState.RUNNING) {
                running.countDown();
            }
        }

        @Override
        public void onChange(String source, @Nullable Duration lag) {
            changes.incrementAndGet();
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
            CompletableFuture<PassReport> future = awaited.remove(report.view());
            if (future != null) {
                future.complete(report);
            }
        }

        /** A future of the next pass of a view; ask before the pass can start. */
        CompletableFuture<PassReport> nextPassOf(ViewKey view) {
            return awaited.computeIfAbsent(view, key -> new CompletableFuture<>());
        }

        /** Runs on every pass start, on the pass's thread (null: none). */
        void onPassStart(@Nullable Consumer<ViewKey> hook) {
            this.onStart = hook;
        }
    }
}
