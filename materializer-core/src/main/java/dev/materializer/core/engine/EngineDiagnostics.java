package dev.materializer.core.engine;

import java.time.Duration;
import java.util.Set;

import dev.materializer.core.stream.StreamListener;

/**
 * A diagnostics hook into a running engine for measurements (the benchmarks' scale report). Not
 * API: what it hands out is the engine's own internal parts, and it changes with them; an
 * application has no use for it.
 *
 * <p>Threads: each method may be called from any thread; what the source feed does with an event
 * is what a stream thread does with it (route, filter by watched fields, mark with the scheduler); a
 * beat runs on the caller's thread, one at a time with the engine's own beats.
 */
public final class EngineDiagnostics {

    private EngineDiagnostics() {
    }

    /**
     * The engine's listener of its source streams, so events can be routed (and timed) on the
     * caller's thread through exactly the path a stream thread takes.
     * @param engine a started or new engine
     * @return its source feed
     */
    public static StreamListener sourceFeed(ViewMaterializer engine) {
        return engine.sourceFeed();
    }

    /**
     * The longest a change waits for its pass while its partition never goes quiet, as the engine
     * computes it from the debounce.
     * @param debounce the debounce
     * @return the longest delay
     */
    public static Duration maxDelay(Duration debounce) {
        return RunningEngine.maxDelay(debounce);
    }

    /**
     * The live instances the engine saw at its last heartbeat, so a measurement of several instances
     * knows when a stop or a start has reached each of them.
     * @param engine the engine
     * @return the instances, itself included; empty before its first heartbeat
     */
    public static Set<String> liveInstances(ViewMaterializer engine) {
        return engine.owned().liveInstances();
    }

    /**
     * Beats now, on the calling thread, as the engine's heartbeat timer does: writes its heartbeat,
     * reads the others' and moves partitions when the live set changed. Nothing happens once the
     * engine has stopped beating (closed). A measurement on a manual clock uses it to keep an
     * instance live in the server's time while it waits for something else.
     * @param engine the engine
     * @throws com.mongodb.MongoException when the heartbeats cannot be written or read
     */
    public static void beat(ViewMaterializer engine) {
        engine.ownership().refresh();
    }
}
