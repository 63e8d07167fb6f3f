package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;

/**
 * The server's time read once, carried forward by the host's monotonic clock: what a pass needs of
 * the server's time later (a lease's end) without another round trip. The server computed its time
 * before the reply left it and the host counts from the reply's arrival, so {@link #now()} is never
 * ahead of the server's clock: a lease computed from it ends no later than one computed from a fresh
 * read — it can only be shorter, which fails safe (another pass may take the view over sooner, and
 * this one gives way).
 *
 * @param read the server's time of the read
 * @param readNanos {@link System#nanoTime()} when the reply arrived
 */
record ServerTime(Instant read, long readNanos) {

    /** The server's time of a read whose reply arrived just now. */
    static ServerTime readNow(Instant read) {
        return new ServerTime(read, System.nanoTime());
    }

    /** The server's time now, at the latest. */
    Instant now() {
        return read.plus(Duration.ofNanos(Math.max(0, System.nanoTime() - readNanos)));
    }
}
