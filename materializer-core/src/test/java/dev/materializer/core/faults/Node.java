package dev.materializer.core.faults;

import java.time.Duration;
import java.util.function.LongSupplier;

import com.mongodb.client.MongoClient;
import dev.materializer.core.engine.EngineProbe;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.engine.ViewMaterializer;
import org.awaitility.core.ConditionFactory;

import static org.awaitility.Awaitility.await;

/**
 * One instance of the engine in a fault scenario: an engine, its id, its client (direct or through
 * a proxy) and the counts of what it did. A node lives once: a restart is a new node, as a restarted
 * process is a new engine.
 */
final class Node {

    static final Duration WAIT = Duration.ofSeconds(20);

    /** How often a wait looks again: often, as some waits move the clock each time they look. */
    static final Duration POLL = Duration.ofMillis(10);

    final String id;

    final MaterializerOptions options;

    final EngineEvents events;

    final ViewMaterializer engine;

    private volatile boolean alive;

    private volatile boolean crashed;

    private final LongSupplier written;

    private long writtenAtStart;

    private int heardAtStart;

    Node(String id, MongoClient client, String database, MaterializerOptions options, EngineEvents events,
            LongSupplier written) {
        this.id = id;
        this.written = written;
        this.options = options;
        this.events = events;
        this.engine = new ViewMaterializer(client, database, options);
    }

    /** A wait of the suite: bounded by {@link #WAIT}, looking every {@link #POLL}. */
    static ConditionFactory waitFor(String what) {
        return await(what).atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(POLL);
    }

    /** Starts the engine and waits until it runs (its streams open, its views read). */
    Node start() {
        alive = true;
        engine.start();
        waitFor("node " + id + " to run").until(() -> engine.snapshot().state() == EngineState.RUNNING);
        // Its streams are open: every change from now on reaches it.
        writtenAtStart = written.getAsLong();
        heardAtStart = heard();
        return this;
    }

    boolean alive() {
        return alive;
    }

    boolean crashed() {
        return crashed;
    }

    /** Stops as a killed process: no last checkpoint, no leave, queued work dropped. */
    void crash() {
        alive = false;
        crashed = true;
        EngineProbe.crash(engine);
    }

    /** The graceful stop of a host: intake off, drain, close. */
    void stop() throws InterruptedException {
        engine.stopIntake();
        engine.drain(WAIT);
        close();
    }

    void close() {
        alive = false;
        engine.close();
    }

    /** Waits until queued and running work is done; a node that does not drain is a finding, not a wait. */
    void drain() {
        if (!alive) {
            return;
        }
        try {
            if (!engine.drain(WAIT)) {
                throw new AssertionError("node " + id + " did not drain within " + WAIT + ": " + engine.inFlight()
                        + " task(s) in flight");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while draining node " + id, ex);
        }
    }

    /** Running, every stream open, nothing in flight. */
    boolean quiet() {
        MaterializerSnapshot snapshot = engine.snapshot();
        return !alive || (snapshot.state() == EngineState.RUNNING && snapshot.reason() == null
                && snapshot.passesInFlight() == 0);
    }

    /** Waits until the engine heard at least this many changes of the shop since it started. */
    void awaitHeard(int changes) {
        waitFor("node " + id + " to hear " + changes + " change(s) of the shop")
            .until(() -> heard() >= changes);
    }

    /**
     * The changes of the shop's sources the engine heard since it started; not those of the views'
     * targets, which the engine writes itself.
     */
    int heard() {
        return events.changesFrom(Shop.ORDERS) + events.changesFrom(Shop.CUSTOMERS);
    }

    /**
     * Waits until the engine heard every change written since it started. For a node that started
     * from now (no checkpoint to resume from), so no replayed change counts for a new one.
     */
    void awaitHeardEverything() {
        awaitHeard(heardAtStart + (int) (written.getAsLong() - writtenAtStart));
    }

    /** Waits until the engine heard a change of that source since it started. */
    void awaitHeardFrom(String source) {
        await("node " + id + " to hear a change of " + source).atMost(WAIT)
            .until(() -> events.changesFrom(source) > 0);
    }

    String describe() {
        MaterializerSnapshot snapshot = engine.snapshot();
        return id + " (" + (alive ? snapshot.state() : "gone") + (snapshot.reason() == null ? "" : ": " + snapshot.reason())
                + ", heard " + heard() + " change(s) of the shop, passes " + events.passes.get() + ", gave way "
                + events.gaveWay.get() + ", errored " + events.errored.get() + ")";
    }

    @Override
    public String toString() {
        return id;
    }
}
