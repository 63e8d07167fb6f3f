package dev.materializer.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/** Records what an engine reports, so tests wait on events rather than on time. */
final class RecordingListener implements MaterializerListener {

    /**
     * The longest wait for the engine. Generous: on the in-process server an upsert that names the
     * partition besides {@code _id} (as sharded targets need) scans the collection, so a pass over a
     * few thousand rows takes seconds there, more on a loaded machine.
     */
    static final Duration WAIT = Duration.ofSeconds(60);

    final AtomicInteger changes = new AtomicInteger();

    final List<PassReport> passes = new CopyOnWriteArrayList<>();

    final List<String> reopened = new CopyOnWriteArrayList<>();

    /** The sources of the events that named no partition, in order. */
    final List<String> broadcasts = new CopyOnWriteArrayList<>();

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        changes.incrementAndGet();
    }

    @Override
    public void onBroadcastEvent(String source) {
        broadcasts.add(source);
    }

    @Override
    public void onPassFinished(PassReport report) {
        passes.add(report);
    }

    @Override
    public void onStreamReopened(String collection, String reason) {
        reopened.add(collection + ": " + reason);
    }

    void awaitChanges(int atLeast) {
        await().atMost(WAIT).until(() -> changes.get() >= atLeast);
    }

    PassReport awaitPass(Predicate<PassReport> test) {
        await().atMost(WAIT).until(() -> passes.stream().anyMatch(test));
        return passes.stream().filter(test).findFirst().orElseThrow();
    }

    List<PassReport> passesOf(String partition, String viewId) {
        List<PassReport> of = new ArrayList<>();
        for (PassReport report : passes) {
            if (report.view().equals(new ViewKey(partition, viewId))) {
                of.add(report);
            }
        }
        return of;
    }

    static Predicate<PassReport> of(String partition, String viewId, PassOutcome... outcomes) {
        return report -> report.view().equals(new ViewKey(partition, viewId))
                && (outcomes.length == 0 || List.of(outcomes).contains(report.outcome()));
    }

    void clear() {
        passes.clear();
        broadcasts.clear();
        changes.set(0);
    }
}
