package dev.materializer.spring.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import dev.materializer.core.EngineState;
import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.ViewState;
import org.jspecify.annotations.Nullable;

/**
 * A hand-written {@link Materializer} for the starter's plumbing tests: it returns the snapshot it is
 * given, records what the host calls, and drains as the test says. Like the real engine, it answers
 * {@link #summary()}, {@link #viewCounts()} and {@link #views(ViewQuery)} without going through
 * {@link #snapshot()}, and it counts the calls of {@link #snapshot()}, so tests can tell that a read
 * did not copy every view. It stands in for no MongoDB behaviour. Thread-safe: every method is
 * synchronized or uses thread-safe parts.
 */
public final class RecordingMaterializer implements Materializer {

    private volatile MaterializerSnapshot snapshot = new MaterializerSnapshot(EngineState.NEW, null, 0, 0, null,
            false, List.of());

    private final List<String> calls = new ArrayList<>();

    private final Map<String, CompletableFuture<PassReport>> refreshes = new HashMap<>();

    private final Map<String, CompletableFuture<VerifyReport>> verifies = new HashMap<>();

    private volatile @Nullable CountDownLatch drainGate;

    private volatile boolean drainResult = true;

    private volatile int inFlight;

    private volatile boolean caughtUp = true;

    private final AtomicInteger caughtUpCalls = new AtomicInteger();

    private volatile @Nullable RuntimeException snapshotFailure;

    private volatile @Nullable Duration drainTimeout;

    private volatile boolean throwForUnknownViews;

    private final AtomicInteger snapshotCalls = new AtomicInteger();

    private volatile java.util.function.Predicate<String> owned = partition -> true;

    /** @param owned the partitions this engine owns, for {@link #ownedViewCounts()}; every one until set */
    public void setOwned(java.util.function.Predicate<String> owned) {
        this.owned = owned;
    }

    /** @param snapshot what {@link #snapshot()} returns from now on */
    public void setSnapshot(MaterializerSnapshot snapshot) {
        this.snapshot = snapshot;
    }

    /** Makes {@link #drain(Duration)} wait for the gate, then return the result. */
    public void drainWaitsFor(CountDownLatch gate, boolean result) {
        this.drainGate = gate;
        this.drainResult = result;
    }

    /** Makes {@link #snapshot()}, {@link #summary()}, {@link #viewCounts()} and {@link #views(ViewQuery)} throw this. */
    public void snapshotFails(RuntimeException failure) {
        this.snapshotFailure = failure;
    }

    /** @param caughtUp what {@link #caughtUp()} returns */
    public void setCaughtUp(boolean caughtUp) {
        this.caughtUp = caughtUp;
    }

    /** @return how often {@link #caughtUp()} was called */
    public int caughtUpCalls() {
        return this.caughtUpCalls.get();
    }

    /** @param inFlight what {@link #inFlight()} returns */
    public void setInFlight(int inFlight) {
        this.inFlight = inFlight;
    }

    /** Makes {@link #refresh(String, String)} of that view return this future. */
    public synchronized void onRefresh(String partition, String id, CompletableFuture<PassReport> result) {
        this.refreshes.put(partition + "/" + id, result);
    }

    /** Makes {@link #verify(String, String)} of that view return this future. */
    public synchronized void onVerify(String partition, String id, CompletableFuture<VerifyReport> result) {
        this.verifies.put(partition + "/" + id, result);
    }

    /**
     * Makes {@link #refresh(String, String)} and {@link #verify(String, String)} of an unknown view
     * throw {@link NoSuchElementException} rather than return a failed future.
     */
    public void throwForUnknownViews() {
        this.throwForUnknownViews = true;
    }

    /** @return the names of the lifecycle methods called, in order */
    public synchronized List<String> calls() {
        return List.copyOf(this.calls);
    }

    /** @return how many times {@link #snapshot()} was called */
    public int snapshotCalls() {
        return this.snapshotCalls.get();
    }

    /** @return the timeout of the last drain */
    public @Nullable Duration drainTimeout() {
        return this.drainTimeout;
    }

    private synchronized void record(String call) {
        this.calls.add(call);
    }

    @Override
    public void start() {
        record("start");
    }

    @Override
    public void stopIntake() {
        record("stopIntake");
    }

    @Override
    public boolean drain(Duration timeout) throws InterruptedException {
        record("drain");
        this.drainTimeout = timeout;
        CountDownLatch gate = this.drainGate;
        if (gate != null) {
            gate.await();
        }
        return this.drainResult;
    }

    @Override
    public int inFlight() {
        return this.inFlight;
    }

    @Override
    public boolean caughtUp() {
        this.caughtUpCalls.incrementAndGet();
        return this.caughtUp;
    }

    @Override
    public void close() {
        record("close");
    }

    @Override
    public MaterializerSnapshot snapshot() {
        this.snapshotCalls.incrementAndGet();
        return current();
    }

    @Override
    public MaterializerSnapshot summary() {
        MaterializerSnapshot whole = current();
        return new MaterializerSnapshot(whole.state(), whole.reason(), whole.openStreams(), whole.passesInFlight(),
                whole.lag(), whole.transactions(), List.of(), whole.reconcile(), whole.catchUp());
    }

    @Override
    public Map<ViewState, Integer> viewCounts() {
        Map<ViewState, Integer> counts = new EnumMap<>(ViewState.class);
        for (ViewSnapshot view : current().views()) {
            counts.merge(view.state(), 1, Integer::sum);
        }
        return counts;
    }

    @Override
    public Map<ViewState, Integer> ownedViewCounts() {
        Map<ViewState, Integer> counts = new EnumMap<>(ViewState.class);
        for (ViewSnapshot view : current().views()) {
            if (this.owned.test(view.partition())) {
                counts.merge(view.state(), 1, Integer::sum);
            }
        }
        return counts;
    }

    @Override
    public ViewPage views(ViewQuery query) {
        return ViewPage.of(current().views(), query);
    }

    /** The snapshot set, or the failure set: what every read of the engine's state sees. */
    private MaterializerSnapshot current() {
        RuntimeException failure = this.snapshotFailure;
        if (failure != null) {
            throw failure;
        }
        return this.snapshot;
    }

    @Override
    public synchronized CompletableFuture<PassReport> refresh(String partition, String id) {
        record("refresh " + partition + "/" + id);
        CompletableFuture<PassReport> result = this.refreshes.get(partition + "/" + id);
        return (result != null) ? result : unknown(partition, id);
    }

    @Override
    public synchronized CompletableFuture<VerifyReport> verify(String partition, String id) {
        record("verify " + partition + "/" + id);
        CompletableFuture<VerifyReport> result = this.verifies.get(partition + "/" + id);
        return (result != null) ? result : unknown(partition, id);
    }

    private <T> CompletableFuture<T> unknown(String partition, String id) {
        NoSuchElementException failure = new NoSuchElementException("no view " + partition + "/" + id);
        if (this.throwForUnknownViews) {
            throw failure;
        }
        return CompletableFuture.failedFuture(failure);
    }
}
