package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.ViewSubscriber;
import dev.materializer.core.ViewSubscription;
import dev.materializer.core.ViewState;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * The starter's {@link Materializer} bean: it answers with the current engine, and
 * {@link #renew()} replaces an engine that was closed with a new one from the
 * {@link MaterializerFactory}, so the {@link MaterializerLifecycle} can start again after a stop
 * although an engine itself does not restart after its close. The endpoint, meters and health hold
 * this bean and so follow the new engine. Between a close and the next start it answers with the
 * closed engine (stopped). Thread-safe.
 */
final class RestartableMaterializer implements Materializer {

    private final Supplier<Materializer> engines;

    private volatile Materializer current;

    /** @param engines creates a new, not yet started engine on each call (the factory's) */
    RestartableMaterializer(Supplier<Materializer> engines) {
        this.engines = engines;
        this.current = engines.get();
    }

    /** Replaces the current engine, which must be closed, with a new one (not started). */
    synchronized void renew() {
        this.current = this.engines.get();
    }

    /** The engine it answers with now. */
    Materializer current() {
        return this.current;
    }

    @Override
    public void start() {
        this.current.start();
    }

    @Override
    public void stopIntake() {
        this.current.stopIntake();
    }

    @Override
    public boolean drain(Duration timeout) throws InterruptedException {
        return this.current.drain(timeout);
    }

    @Override
    public int inFlight() {
        return this.current.inFlight();
    }

    @Override
    public boolean caughtUp() {
        return this.current.caughtUp();
    }

    @Override
    public void close() {
        this.current.close();
    }

    @Override
    public void stop() throws InterruptedException {
        this.current.stop();
    }

    @Override
    public MaterializerSnapshot snapshot() {
        return this.current.snapshot();
    }

    @Override
    public MaterializerSnapshot summary() {
        return this.current.summary();
    }

    @Override
    public Map<ViewState, Integer> viewCounts() {
        return this.current.viewCounts();
    }

    @Override
    public Map<ViewState, Integer> ownedViewCounts() {
        return this.current.ownedViewCounts();
    }

    @Override
    public int watchedStreams() {
        return this.current.watchedStreams();
    }

    @Override
    public ViewPage views(ViewQuery query) {
        return this.current.views(query);
    }

    @Override
    public Optional<ViewSnapshot> view(String partition, String id) {
        return this.current.view(partition, id);
    }

    @Override
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return this.current.awaitIdle(timeout);
    }

    @Override
    public boolean awaitFresh(String partition, String id, Duration timeout) throws InterruptedException {
        return this.current.awaitFresh(partition, id, timeout);
    }

    @Override
    public boolean awaitFresh(String partition, String id, String collection, @Nullable BsonTimestamp operationTime,
            Duration timeout) throws InterruptedException {
        return this.current.awaitFresh(partition, id, collection, operationTime, timeout);
    }

    /** Subscribes on the current engine: its close (a stop of the lifecycle) ends the subscription. */
    @Override
    public ViewSubscription subscribe(String partition, String viewId, ViewSubscriber subscriber) {
        return this.current.subscribe(partition, viewId, subscriber);
    }

    /** Subscribes on the current engine: its close (a stop of the lifecycle) ends the subscription. */
    @Override
    public ViewSubscription subscribe(String partition, String viewId, long fromGeneration, ViewSubscriber subscriber) {
        return this.current.subscribe(partition, viewId, fromGeneration, subscriber);
    }

    @Override
    public CompletableFuture<PassReport> refresh(String partition, String id) {
        return this.current.refresh(partition, id);
    }

    @Override
    public CompletableFuture<VerifyReport> verify(String partition, String id) {
        return this.current.verify(partition, id);
    }

    @Override
    public String toString() {
        return "RestartableMaterializer[" + this.current + "]";
    }
}
