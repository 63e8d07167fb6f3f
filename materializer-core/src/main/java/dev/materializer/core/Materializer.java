package dev.materializer.core;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;


/**
 * What a host (the Spring Boot starter, or any application) drives and observes of the engine.
 * {@code dev.materializer.core.engine.ViewMaterializer} is the implementation; the interface lets hosts and their tests depend on
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

    /**
     * Whether every change this instance has heard is applied: no partition has marks waiting for a
     * pass (a debounce, a retry, a catch-up's turn) or taken by a pass not yet ended, and nothing is
     * in flight. Cheap enough to read at each scrape, not at each event. This default answers from
     * {@link #inFlight()} alone, which misses marks still waiting for their debounce.
     * @return true when nothing heard is left to apply
     */
    default boolean caughtUp() {
        return inFlight() == 0;
    }

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

    /** A picture of the engine's state now, with every view: its cost grows with the views. */
    MaterializerSnapshot snapshot();

    /**
     * The engine's state now without its views: a {@link #snapshot()} whose
     * {@link MaterializerSnapshot#views() views} may be empty. For what is read often (gauges,
     * health, the summary of the endpoint); an engine answers it without visiting its views.
     * @return the state, the streams, the work in flight, the lag, and the reconciler's and the
     *     catch-ups' progress
     */
    default MaterializerSnapshot summary() {
        MaterializerSnapshot whole = snapshot();
        return new MaterializerSnapshot(whole.state(), whole.reason(), whole.openStreams(), whole.passesInFlight(),
                whole.lag(), whole.transactions(), List.of(), whole.reconcile(), whole.catchUp());
    }

    /**
     * How many views this instance knows in each state, by {@link ViewState};
     * a state without views may be absent or 0. An engine answers it from counts it keeps; this
     * default counts the views of a {@link #snapshot()}.
     * @return the number of views by state
     */
    default Map<ViewState, Integer> viewCounts() {
        Map<ViewState, Integer> counts = new EnumMap<>(ViewState.class);
        for (ViewSnapshot view : snapshot().views()) {
            counts.merge(view.state(), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * How many views of the partitions this instance owns now are in each state
     * ({@link ViewState}): summed over the instances of a cluster, each view counts once (by
     * its owner), where {@link #viewCounts()} counts it on every instance that knows it. For gauges.
     * This default, for an engine that shares no partitions, is {@link #viewCounts()}.
     * @return the number of owned views by state
     */
    default Map<ViewState, Integer> ownedViewCounts() {
        return viewCounts();
    }

    /**
     * How many change streams this instance keeps now (its views stream and one per collection its
     * views read), open or reopening; {@link MaterializerSnapshot#openStreams()} of them are open. This
     * default says every open stream, for an engine that cannot tell.
     * @return the streams kept
     */
    default int watchedStreams() {
        return summary().openStreams();
    }

    /**
     * One page of the views this instance knows, filtered by partition and state, in the order of
     * {@link ViewPage#ORDER}. This default pages the views of a {@link #snapshot()}.
     * @param query which views, and which page
     * @return the page, with the number of views that match
     */
    default ViewPage views(ViewQuery query) {
        return ViewPage.of(snapshot().views(), query);
    }

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
     * Waits until this instance has applied every change acknowledged before this call that it is
     * to apply: each of its streams has handed on everything committed before the call, and then
     * {@link #caughtUp()} holds. For tests and scripted checks ("write, then wait, then assert"); a
     * view's wait is {@link #awaitFresh(String, String, Duration)}. With several instances it
     * speaks for this one only.
     * @param timeout the longest wait
     * @return true when idle; false at the timeout (a stream reopening, a pass retrying, a change
     *     that keeps coming)
     * @throws InterruptedException when interrupted while waiting
     */
    default boolean awaitIdle(Duration timeout) throws InterruptedException {
        throw new UnsupportedOperationException("this materializer cannot wait until it is idle");
    }

    /**
     * Waits until a view reflects every change of the collections it depends on that was
     * acknowledged before this call — read-your-writes after the caller's own write — and every
     * change of its definition, or of a view it reads, acknowledged before it (the view then ran
     * the new definition). Answered by the instance that owns the view's partition, from what it
     * applied while it owned it throughout (after a handover and back, its catch-up counts); on
     * another instance it waits, and answers false at the timeout, unless it comes to own the
     * partition: there, use
     * {@link #awaitFresh(String, String, String, BsonTimestamp, Duration)}.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @param timeout the longest wait
     * @return true when the view is fresh; false at the timeout, or while the view or one it reads
     *     is errored
     * @throws InterruptedException when interrupted while waiting
     * @throws java.util.NoSuchElementException at the timeout, when this instance still knows no such
     *     view (a view installed just before the call counts once the engine has read it)
     */
    default boolean awaitFresh(String partition, String id, Duration timeout) throws InterruptedException {
        throw new UnsupportedOperationException("this materializer cannot wait for a view to be fresh");
    }

    /**
     * Waits until a view reflects a write the caller made to one of the collections it depends on.
     * The instance that owns the view's partition answers as
     * {@link #awaitFresh(String, String, Duration)} does; any other reads the view's status, in
     * which every pass records, per collection, the cluster time of the newest change it applied.
     * There a write that changes nothing the view reads records nothing, and the wait ends false
     * at its timeout.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @param collection the collection the caller wrote
     * @param operationTime the operation time of the write (a session's
     *     {@code getOperationTime()} after it), or null to wait for everything acknowledged before this call
     * @param timeout the longest wait
     * @return true when the view reflects the write; false at the timeout
     * @throws InterruptedException when interrupted while waiting
     * @throws java.util.NoSuchElementException at the timeout, when this instance still knows no such view
     */
    default boolean awaitFresh(String partition, String id, String collection, @Nullable BsonTimestamp operationTime,
            Duration timeout) throws InterruptedException {
        return awaitFresh(partition, id, timeout);
    }

    /**
     * Subscribes to a view's changes from now: the subscriber is handed the view's rows (a
     * {@link ViewRowsSnapshot}, reason {@link SnapshotReason#STARTED}), then one {@link ViewDelta}
     * per flip, in generation order, none skipped, none partial. Works on every instance, whoever
     * owns the partition. A view not known yet (or never run) starts from no rows at generation 0.
     * @param partition the partition
     * @param viewId the text of the view's {@code _id}
     * @param subscriber what receives the changes, on a thread of the subscription
     * @return the subscription; close it to free it
     */
    default ViewSubscription subscribe(String partition, String viewId, ViewSubscriber subscriber) {
        throw new UnsupportedOperationException("this materializer cannot follow views");
    }

    /**
     * Subscribes to a view's changes after a generation the subscriber holds: while the versions
     * since are kept (within {@code generation-grace} of that generation being superseded), it is
     * told {@link ViewSubscriber#onResumed(long)} and handed every delta since; otherwise a snapshot
     * ({@link SnapshotReason#NOT_RESUMABLE}) and the deltas after it.
     * @param partition the partition
     * @param viewId the text of the view's {@code _id}
     * @param fromGeneration the generation the subscriber holds (that of its last delta or snapshot)
     * @param subscriber what receives the changes, on a thread of the subscription
     * @return the subscription; close it to free it
     */
    default ViewSubscription subscribe(String partition, String viewId, long fromGeneration,
            ViewSubscriber subscriber) {
        throw new UnsupportedOperationException("this materializer cannot follow views");
    }

    /**
     * Runs one view now, outside the debounce.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return the report of the pass when it ends; completes exceptionally with
     *     {@link java.util.NoSuchElementException} for a view this instance does not know, with
     *     {@link EngineClosedException} when the engine closes (or has
     *     closed) before the pass starts, and with {@link IllegalStateException} when it has not started
     */
    CompletableFuture<PassReport> refresh(String partition, String id);

    /**
     * Compares one view's stored rows with a fresh run of its pipeline, writing nothing.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return what differs; completes exceptionally with {@link java.util.NoSuchElementException}
     *     for a view this instance does not know, with
     *     {@link EngineClosedException} when the engine closes (or has
     *     closed) before the comparison starts, and with {@link IllegalStateException} when it has not
     *     started
     */
    default CompletableFuture<VerifyReport> verify(String partition, String id) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this materializer cannot verify views"));
    }
}
