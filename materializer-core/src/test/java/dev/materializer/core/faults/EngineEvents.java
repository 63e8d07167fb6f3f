package dev.materializer.core.faults;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;

/**
 * Counts what one engine reports: a scenario waits on counts, and the driver tells activity from
 * quiet by them. With a timeline, also writes each report on it under the node's id.
 */
final class EngineEvents implements MaterializerListener {

    private final String node;

    private final @Nullable Timeline timeline;

    final AtomicInteger changes = new AtomicInteger();

    final Map<String, AtomicInteger> changesBySource = new ConcurrentHashMap<>();

    final AtomicInteger passes = new AtomicInteger();

    /** Passes that gave way to another, or could not reach MongoDB: both wait for a retry. */
    final AtomicInteger gaveWay = new AtomicInteger();

    final AtomicInteger errored = new AtomicInteger();

    final AtomicInteger reopened = new AtomicInteger();

    /** Reconcile runs that ended, whatever they found. */
    final AtomicInteger reconciled = new AtomicInteger();

    /** Reconcile runs that found a difference, drift or not. */
    final AtomicInteger reconciledDifferent = new AtomicInteger();

    /** The reconcile runs the engine called drift, each as {@code view: report}. */
    final List<String> drifts = new CopyOnWriteArrayList<>();

    /** Counts only. */
    EngineEvents() {
        this("", null);
    }

    EngineEvents(String node, @Nullable Timeline timeline) {
        this.node = node;
        this.timeline = timeline;
    }

    private void note(String what) {
        if (timeline != null) {
            timeline.add(node, what);
        }
    }

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        changes.incrementAndGet();
        changesBySource.computeIfAbsent(source, key -> new AtomicInteger()).incrementAndGet();
        note("heard a change of " + source + (lag == null ? "" : " (lag " + lag.toMillis() + " ms)"));
    }

    /** What a scenario does when a pass starts, on the pass's thread; nothing unless set. */
    volatile Runnable onPassStarted = () -> { };

    @Override
    public void onPassStarted(ViewKey view) {
        note("runs " + view);
        onPassStarted.run();
    }

    int changesFrom(String source) {
        AtomicInteger count = changesBySource.get(source);
        return count == null ? 0 : count.get();
    }

    @Override
    public void onPassFinished(PassReport report) {
        passes.incrementAndGet();
        if (report.outcome() == PassOutcome.SUPERSEDED) {
            gaveWay.incrementAndGet();
        }
        note("ran " + report.view() + ": " + report.outcome() + " by " + report.mode() + ", " + report.rowsWritten()
                + " written, " + report.rowsRemoved() + " removed" + (report.error() == null ? "" : " (" + report.error() + ")"));
    }

    @Override
    public void onViewErrored(ViewKey view, String error) {
        errored.incrementAndGet();
        note("view " + view + " errored: " + error);
    }

    @Override
    public void onStreamReopened(String collection, String reason) {
        reopened.incrementAndGet();
        note("the stream of " + collection + " ended (" + reason + ") and reopens");
    }

    @Override
    public void onStateChanged(EngineState state, @Nullable String reason) {
        note("is " + state + (reason == null ? "" : " (" + reason + ")"));
    }

    @Override
    public void onReconciled(ViewKey view, VerifyReport report, boolean drift) {
        reconciled.incrementAndGet();
        if (!report.inSync()) {
            reconciledDifferent.incrementAndGet();
        }
        if (drift) {
            drifts.add(view + ": " + report);
        }
        note("reconciled " + view + ": " + (report.inSync() ? "in sync" : report.differences() + " row(s) differ")
                + (drift ? ", DRIFT" : report.inSync() ? "" : ", not drift"));
    }

    /** A number that grows with anything the engine does: heard changes, passes, stream reopenings. */
    long activity() {
        return (long) changes.get() + passes.get() + reopened.get();
    }
}
