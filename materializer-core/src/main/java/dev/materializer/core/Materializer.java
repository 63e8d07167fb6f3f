package dev.materializer.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a host (the Spring Boot starter, or any application) drives and observes of the engine.
 * {@link ViewMaterializer} is the implementation; the interface lets hosts and their tests depend on
 * the contract rather than on the MongoDB-bound class.
 *
 * <p>The stop comes in parts, so a host composes its own graceful shutdown: {@link #stopIntake()},
 * {@link #drain(Duration)}, {@link #inFlight()}, {@link #close()}.
 */
public interface Materializer extends AutoCloseable {

    /** Starts the engine; returns at once, even while MongoDB is unreachable (it retries with backoff). */
    void start();

    /** Stops intake: a change starts no pass, and a waiting pass does not start. */
    void stopIntake();

    /**
     * Waits until no work is in flight, or the timeout passes.
     * @param timeout the longest wait
     * @return true when no work is left
     * @throws InterruptedException when interrupted while waiting
     */
    boolean drain(Duration timeout) throws InterruptedException;

    /** The passes, rebalances and status writes in flight or queued. */
    int inFlight();

    /** Closes the streams and cancels every timer; work in flight ends on its own. */
    @Override
    void close();

    /**
     * Stops the engine: {@link #stopIntake()}, {@link #drain(Duration)} without limit, {@link #close()}.
     * @throws InterruptedException when interrupted while draining
     */
    default void stop() throws InterruptedException {
        stopIntake();
        drain(Duration.ofDays(365));
        close();
    }

    /** A picture of the engine's state now. */
    MaterializerSnapshot snapshot();

    /**
     * One view as this instance knows it.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return the view, or empty when unknown
     */
    default Optional<ViewSnapshot> view(String partition, String id) {
        return snapshot().views().stream()
            .filter(view -> view.partition().equals(partition) && view.id().equals(id))
            .findFirst();
    }

    /**
     * Runs one view now, outside the debounce.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return the report of the pass when it ends; completes exceptionally with
     *     {@link java.util.NoSuchElementException} for a view this instance does not know
     */
    CompletableFuture<PassReport> refresh(String partition, String id);

    /**
     * Compares one view's stored rows with a fresh run of its pipeline, writing nothing.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return what differs; completes exceptionally with {@link java.util.NoSuchElementException}
     *     for a view this instance does not know
     */
    default CompletableFuture<VerifyReport> verify(String partition, String id) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this materializer cannot verify views"));
    }
}
