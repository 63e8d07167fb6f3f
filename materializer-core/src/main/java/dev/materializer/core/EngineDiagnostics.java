package dev.materializer.core;

import java.time.Duration;

import dev.materializer.core.stream.StreamListener;

/**
 * A diagnostics hook into a running engine for measurements (the benchmarks' scale report). Not
 * API: what it hands out is the engine's own internal parts, and it changes with them; an
 * application has no use for it.
 *
 * <p>Threads: each method may be called from any thread; what the source feed does with an event
 * is what a stream thread does with it (route, filter by watched fields, mark with the scheduler).
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
        return ViewMaterializer.maxDelay(debounce);
    }
}
