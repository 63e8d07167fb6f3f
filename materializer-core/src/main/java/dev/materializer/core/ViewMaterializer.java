package dev.materializer.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import com.mongodb.client.MongoClient;

/**
 * Keeps every view's target equal to the result of its pipeline. (Skeleton: the runtime is being
 * built in "Core engine II".)
 */
public final class ViewMaterializer implements Materializer {

    /**
     * Creates the engine; nothing runs before {@link #start()}.
     * @param client the application's client
     * @param database the database of the views, sources and targets
     * @param options the options
     */
    public ViewMaterializer(MongoClient client, String database, MaterializerOptions options) {
        throw new UnsupportedOperationException("ViewMaterializer: not implemented yet");
    }

    /** Starts the engine; returns at once, even while MongoDB is unreachable. */
    public void start() {
        throw new UnsupportedOperationException();
    }

    /** Stops intake: a change starts no pass, and a waiting pass does not start. */
    public void stopIntake() {
        throw new UnsupportedOperationException();
    }

    /**
     * Waits until no work is in flight, or the timeout passes.
     * @param timeout the longest wait
     * @return true when no work is left
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        throw new UnsupportedOperationException();
    }

    /** The passes, rebalances and status writes in flight or queued. */
    public int inFlight() {
        throw new UnsupportedOperationException();
    }

    /** Closes the streams and cancels every timer; work in flight ends on its own. */
    @Override
    public void close() {
        throw new UnsupportedOperationException();
    }

    /** A picture of the engine's state now. */
    public MaterializerSnapshot snapshot() {
        throw new UnsupportedOperationException();
    }

    /**
     * Runs one view now, outside the debounce.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return the report of the pass, when it ends; fails with {@link java.util.NoSuchElementException}
     *     for an unknown view
     */
    public CompletableFuture<PassReport> refresh(String partition, String id) {
        throw new UnsupportedOperationException();
    }
}
