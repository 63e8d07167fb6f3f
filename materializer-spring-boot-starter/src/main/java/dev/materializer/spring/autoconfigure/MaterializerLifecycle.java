package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.materializer.core.Materializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the engine with the application context and stops it gracefully: no new passes
 * ({@link Materializer#stopIntake()}), a wait of at most the shutdown timeout for the passes already
 * running ({@link Materializer#drain(Duration)}), then close. Queued passes do not start: their
 * changes stay pending in the checkpoints the close saves, and run after the restart. The stop runs
 * on a thread of its own and calls Spring back when done, so other lifecycle beans of the same phase
 * stop in parallel.
 *
 * <p>Its {@link #PHASE} stops it before Boot's graceful web shutdown and long before the
 * {@code MongoClient} closes (beans are destroyed after every phase has stopped). Spring waits for a
 * phase at most {@code spring.lifecycle.timeout-per-shutdown-phase}; should that run out first, the
 * engine is closed when this bean is destroyed, still before the client.
 *
 * <p>It can start again after a stop ({@code ConfigurableApplicationContext.stop()} then
 * {@code start()}): an engine does not start again after its close, so the starter's
 * {@code Materializer} bean delegates to an engine that each start after a stop builds anew through
 * the {@link MaterializerFactory}, with the same client, database and options; the endpoint, meters
 * and health follow it. The new engine resumes from the checkpoints the old one saved. When the
 * application defined its own {@code Materializer} bean the starter cannot build another, and a start
 * after a stop fails with an {@link IllegalStateException} that says so; so does a start while a
 * stop still drains.
 *
 * <p>With {@code materializer.auto-startup=false} the context does not start the engine
 * ({@link #isAutoStartup()} is false): the application calls {@link #start()} on this bean when it
 * wants the engine to run. Until then the engine exists (the endpoint, meters and health read it)
 * but watches nothing.
 *
 * <p>An unreachable MongoDB does not fail the start: {@link Materializer#start()} returns at once and
 * the engine retries. So this bean logs only that the engine is starting; the engine logs when it
 * runs (and, while MongoDB is unreachable, each retry). Thread-safe.
 */
public final class MaterializerLifecycle implements SmartLifecycle, DisposableBean {

    /** Before Boot's graceful web shutdown ({@code DEFAULT_PHASE - 1024}) and after ordinary beans. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private static final Logger log = LoggerFactory.getLogger(MaterializerLifecycle.class);

    private final Materializer materializer;

    private final Duration shutdownTimeout;

    private final boolean autoStartup;

    private final Object monitor = new Object();

    private boolean running;

    private boolean started;

    /** A stop is draining or closing the engine. */
    private boolean stopping;

    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * A lifecycle that starts the engine with the context.
     * @param materializer the engine to run
     * @param shutdownTimeout the longest wait for work in flight when stopping
     */
    public MaterializerLifecycle(Materializer materializer, Duration shutdownTimeout) {
        this(materializer, shutdownTimeout, true);
    }

    /**
     * @param materializer the engine to run
     * @param shutdownTimeout the longest wait for work in flight when stopping
     * @param autoStartup whether to start the engine with the context; when false the application
     *     starts it with {@link #start()} (or {@code ConfigurableApplicationContext.start()})
     */
    public MaterializerLifecycle(Materializer materializer, Duration shutdownTimeout, boolean autoStartup) {
        this.materializer = materializer;
        this.shutdownTimeout = shutdownTimeout;
        this.autoStartup = autoStartup;
    }

    /**
     * Starts the engine, or does nothing when it runs. After a stop, the starter's engine is
     * replaced by a new one from the {@link MaterializerFactory}, which starts.
     * @throws IllegalStateException when the previous stop has not ended yet, or when the engine
     *     was stopped and is the application's own {@code Materializer} bean, which cannot start
     *     again
     */
    @Override
    public void start() {
        boolean restart;
        synchronized (this.monitor) {
            if (this.running) {
                return;
            }
            if (this.stopping) {
                throw new IllegalStateException("Materializer is still stopping (draining its passes in flight): "
                        + "start it again once the stop has ended");
            }
            restart = this.closed.get();
            if (restart) {
                if (!(this.materializer instanceof RestartableMaterializer restartable)) {
                    throw new IllegalStateException("Materializer cannot start again after it was stopped: the "
                            + "Materializer bean is the application's own (" + this.materializer.getClass().getName()
                            + "), and an engine does not start again after its close. Define a MaterializerFactory "
                            + "bean instead of a Materializer bean to let the starter build a new engine on each "
                            + "start, or refresh a new application context");
                }
                restartable.renew();
                this.closed.set(false);
            }
            this.materializer.start();
            this.running = true;
            this.started = true;
        }
        // start() returned, which says nothing of MongoDB: the engine connects (and retries) in the
        // background and logs itself when it runs.
        log.info("Materializer {} (connecting to MongoDB in the background; the engine logs "
                + "'The materializer runs' once it watches its sources)",
                restart ? "starting again with a new engine" : "starting");
    }

    @Override
    public void stop() {
        if (markStopped()) {
            shutdown();
        }
    }

    @Override
    public void stop(Runnable callback) {
        if (!markStopped()) {
            callback.run();
            return;
        }
        Thread thread = new Thread(() -> {
            try {
                shutdown();
            }
            finally {
                callback.run();
            }
        }, "materializer-shutdown");
        // A drain that outlives Spring's wait must not keep the JVM alive.
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public boolean isRunning() {
        synchronized (this.monitor) {
            return this.running;
        }
    }

    /** Whether the engine starts with the context: {@code materializer.auto-startup}. */
    @Override
    public boolean isAutoStartup() {
        return this.autoStartup;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Closes an engine that was started and not stopped, for example after a failed context refresh. */
    @Override
    public void destroy() {
        boolean wasStarted;
        synchronized (this.monitor) {
            wasStarted = this.started;
            this.running = false;
        }
        if (wasStarted && this.closed.compareAndSet(false, true)) {
            log.warn("Materializer closed without draining: the context closed before its graceful stop ended ({} in flight)",
                    inFlightOrUnknown());
            this.materializer.stopIntake();
            this.materializer.close();
        }
    }

    private boolean markStopped() {
        synchronized (this.monitor) {
            boolean wasRunning = this.running;
            this.running = false;
            if (wasRunning) {
                this.stopping = true;
            }
            return wasRunning;
        }
    }

    private void shutdown() {
        try {
            this.materializer.stopIntake();
            drain();
        }
        catch (RuntimeException ex) {
            log.warn("Materializer failed to stop gracefully; closing it", ex);
        }
        finally {
            try {
                if (this.closed.compareAndSet(false, true)) {
                    this.materializer.close();
                    log.info("Materializer stopped");
                }
            }
            finally {
                synchronized (this.monitor) {
                    this.stopping = false;
                }
            }
        }
    }

    private void drain() {
        int before = inFlightOrUnknown();
        String timeout = MaterializerOptionsMapping.readable(this.shutdownTimeout);
        log.info("Materializer stopping: intake stopped, waiting up to {} for {} in flight (queued passes do not "
                + "start: they stay pending in the checkpoints and run after the restart)", timeout, before);
        long startNanos = System.nanoTime();
        boolean drained;
        try {
            drained = this.materializer.drain(this.shutdownTimeout);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            log.warn("Materializer stop interrupted while draining; abandoning {} in flight", inFlightOrUnknown());
            return;
        }
        long waitedMillis = Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
        if (drained) {
            log.info("Materializer drained {} in flight in {} ms", before, waitedMillis);
        }
        else {
            log.warn("Materializer abandoned {} in flight after {} ms (materializer.shutdown-timeout={}); "
                    + "they end on their own after the close", inFlightOrUnknown(), waitedMillis, timeout);
        }
    }

    private int inFlightOrUnknown() {
        try {
            return this.materializer.inFlight();
        }
        catch (RuntimeException ex) {
            return -1;
        }
    }
}
