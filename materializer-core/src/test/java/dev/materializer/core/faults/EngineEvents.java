package dev.materializer.core.faults;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.view.ViewKey;
import org.jspecify.annotations.Nullable;

/** Counts what one engine reports: a scenario waits on counts, and the driver tells activity from quiet by them. */
final class EngineEvents implements MaterializerListener {

    final AtomicInteger changes = new AtomicInteger();

    final Map<String, AtomicInteger> changesBySource = new ConcurrentHashMap<>();

    final AtomicInteger passes = new AtomicInteger();

    /** Passes that gave way to another, or could not reach MongoDB: both wait for a retry. */
    final AtomicInteger gaveWay = new AtomicInteger();

    final AtomicInteger errored = new AtomicInteger();

    final AtomicInteger reopened = new AtomicInteger();

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        changes.incrementAndGet();
        changesBySource.computeIfAbsent(source, key -> new AtomicInteger()).incrementAndGet();
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
    }

    @Override
    public void onViewErrored(ViewKey view, String error) {
        errored.incrementAndGet();
    }

    @Override
    public void onStreamReopened(String collection, String reason) {
        reopened.incrementAndGet();
    }

    /** A number that grows with anything the engine does: heard changes, passes, stream reopenings. */
    long activity() {
        return (long) changes.get() + passes.get() + reopened.get();
    }
}
