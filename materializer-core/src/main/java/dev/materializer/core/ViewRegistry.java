package dev.materializer.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.WatchedFields;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewKey;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * The views this instance knows, by id (an {@code _id} is unique in the views collection, so a view
 * that moves to another partition replaces its old self), with what the runtime knows of each:
 * state, generation, last run. Also keeps the indexes routing needs: the partitions reading each
 * source, and the compiled {@code sourceFields} of each view.
 *
 * <p>Threads: read by the stream threads (routing) and the pass workers, written by the views
 * stream and the pass workers. Every method is synchronized and returns copies.
 */
final class ViewRegistry {

    private final String partitionField;

    private final Map<String, Entry> byId = new LinkedHashMap<>();

    private final Map<String, InvalidView> invalid = new LinkedHashMap<>();

    ViewRegistry(String partitionField) {
        this.partitionField = partitionField;
    }

    /**
     * Adds or replaces a view.
     * @return the definition it replaced, or null
     */
    synchronized @Nullable ViewDefinition put(ViewDefinition view, @Nullable ObjectId generation) {
        String id = view.key().id();
        invalid.remove(id);
        Entry previous = byId.put(id, new Entry(view, generation, partitionField));
        return previous == null ? null : previous.view;
    }

    /** Removes a view by id; gives the definition removed, or null. */
    synchronized @Nullable ViewDefinition remove(String id) {
        invalid.remove(id);
        Entry removed = byId.remove(id);
        return removed == null ? null : removed.view;
    }

    synchronized void putInvalid(String id, @Nullable String partition, String error) {
        byId.remove(id);
        invalid.put(id, new InvalidView(id, partition, error));
    }

    synchronized @Nullable InvalidView invalid(String id) {
        return invalid.get(id);
    }

    synchronized @Nullable ViewDefinition definition(String id) {
        Entry entry = byId.get(id);
        return entry == null ? null : entry.view;
    }

    synchronized @Nullable ViewDefinition find(String partition, String id) {
        Entry entry = byId.get(id);
        return entry != null && entry.view.partition().equals(partition) ? entry.view : null;
    }

    synchronized Set<String> ids() {
        Set<String> ids = new HashSet<>(byId.keySet());
        ids.addAll(invalid.keySet());
        return ids;
    }

    synchronized List<ViewDefinition> views(String partition) {
        List<ViewDefinition> views = new ArrayList<>();
        for (Entry entry : byId.values()) {
            if (entry.view.partition().equals(partition)) {
                views.add(entry.view);
            }
        }
        return views;
    }

    synchronized Set<String> partitions() {
        Set<String> partitions = new TreeSet<>();
        byId.values().forEach(entry -> partitions.add(entry.view.partition()));
        return partitions;
    }

    /** Every source some view reads. */
    synchronized Set<String> sources() {
        Set<String> sources = new TreeSet<>();
        byId.values().forEach(entry -> sources.addAll(entry.view.collections()));
        return sources;
    }

    /** The views reading the source, in every partition. */
    synchronized List<ViewDefinition> viewsReading(String source) {
        List<ViewDefinition> views = new ArrayList<>();
        byId.values().forEach(entry -> {
            if (entry.view.reads(source)) {
                views.add(entry.view);
            }
        });
        return views;
    }

    /**
     * Per partition, the views reading the source that have run before (they have a generation):
     * those that may have missed changes while nothing watched the source. A view never run runs
     * through its rebalance anyway.
     */
    synchronized Map<String, List<String>> materializedViewsReading(String source) {
        Map<String, List<String>> views = new HashMap<>();
        byId.forEach((id, entry) -> {
            if (entry.view.reads(source) && entry.generation != null) {
                views.computeIfAbsent(entry.view.partition(), key -> new ArrayList<>()).add(id);
            }
        });
        return views;
    }

    /** The partitions with a view reading the source. */
    synchronized Set<String> partitionsReading(String source) {
        Set<String> partitions = new HashSet<>();
        for (Entry entry : byId.values()) {
            if (entry.view.reads(source)) {
                partitions.add(entry.view.partition());
            }
        }
        return partitions;
    }

    /**
     * Per partition among those given (or all when null), the views that read the source and whose
     * watched fields the change may touch.
     */
    synchronized Map<String, List<String>> viewsToMark(String source, SourceChange change, @Nullable Set<String> among) {
        Map<String, List<String>> marked = new HashMap<>();
        for (Map.Entry<String, Entry> each : byId.entrySet()) {
            Entry entry = each.getValue();
            String partition = entry.view.partition();
            if ((among != null && !among.contains(partition)) || !entry.view.reads(source)) {
                continue;
            }
            if (entry.watched(source).mayBeTouchedBy(change)) {
                marked.computeIfAbsent(partition, key -> new ArrayList<>()).add(each.getKey());
            }
        }
        return marked;
    }

    /** Whether the view is held back from running: in a cycle, or sharing its target. */
    synchronized boolean isBlocked(ViewKey key) {
        Entry entry = byId.get(key.id());
        return entry != null && entry.state.blocked();
    }

    synchronized @Nullable RunState state(ViewKey key) {
        Entry entry = byId.get(key.id());
        return entry == null ? null : entry.state;
    }

    synchronized void setState(ViewKey key, RunState state, @Nullable String error) {
        Entry entry = byId.get(key.id());
        if (entry != null && entry.view.partition().equals(key.partition())) {
            entry.state = state;
            entry.lastError = error;
        }
    }

    synchronized void recordPass(ViewKey key, PassReport report, Instant at) {
        Entry entry = byId.get(key.id());
        if (entry == null || !entry.view.partition().equals(key.partition())) {
            return;
        }
        entry.lastRun = at;
        entry.lastOutcome = report.outcome();
        entry.lastMode = report.mode();
    }

    /** Records a reconcile run, and the rows of drift it found (0 when in sync). */
    synchronized void recordReconcile(ViewKey key, Instant at, long driftRows) {
        Entry entry = byId.get(key.id());
        if (entry == null || !entry.view.partition().equals(key.partition())) {
            return;
        }
        entry.lastReconciled = at;
        entry.driftRows += driftRows;
    }

    synchronized @Nullable ObjectId generation(ViewKey key) {
        Entry entry = byId.get(key.id());
        return entry == null ? null : entry.generation;
    }

    synchronized void setGeneration(ViewKey key, @Nullable ObjectId generation) {
        Entry entry = byId.get(key.id());
        if (entry != null && entry.view.partition().equals(key.partition())) {
            entry.generation = generation;
        }
    }

    synchronized List<ViewSnapshot> snapshot() {
        List<ViewSnapshot> views = new ArrayList<>();
        for (Entry entry : byId.values()) {
            ViewDefinition view = entry.view;
            views.add(new ViewSnapshot(view.partition(), view.key().id(), entry.state.value(), view.collections(),
                    view.targetCollection(), entry.generation == null ? null : entry.generation.toHexString(),
                    entry.lastRun, entry.lastError, entry.lastOutcome, entry.lastMode, entry.lastReconciled,
                    entry.driftRows));
        }
        for (InvalidView view : invalid.values()) {
            views.add(new ViewSnapshot(view.partition() == null ? "" : view.partition(), view.id(), RunState.ERRORED.value(),
                    List.of(), "", null, null, view.error(), null, null));
        }
        return views;
    }

    /** The number of views by runtime state, for gauges. */
    synchronized Map<String, Integer> countByState() {
        Map<String, Integer> counts = new HashMap<>();
        byId.values().forEach(entry -> counts.merge(entry.state.value(), 1, Integer::sum));
        counts.merge(RunState.ERRORED.value(), invalid.size(), Integer::sum);
        return counts;
    }

    synchronized Collection<String> idsIn(String partition) {
        List<String> ids = new ArrayList<>();
        byId.forEach((id, entry) -> {
            if (entry.view.partition().equals(partition)) {
                ids.add(id);
            }
        });
        return ids;
    }

    /** A view document that cannot run, with why. */
    record InvalidView(String id, @Nullable String partition, String error) {
    }

    private static final class Entry {

        private final ViewDefinition view;

        /** Compiled when the view is registered: routing never builds anything that could fail. */
        private final Map<String, WatchedFields> watched = new HashMap<>();

        private RunState state = RunState.PENDING;

        private @Nullable String lastError;

        private @Nullable ObjectId generation;

        private @Nullable Instant lastRun;

        private @Nullable PassOutcome lastOutcome;

        private @Nullable WriteMode lastMode;

        private @Nullable Instant lastReconciled;

        private long driftRows;

        Entry(ViewDefinition view, @Nullable ObjectId generation, String partitionField) {
            this.view = view;
            this.generation = generation;
            for (String source : view.collections()) {
                watched.put(source, WatchedFields.of(view.sourceFields().getOrDefault(source, List.of()), partitionField));
            }
        }

        WatchedFields watched(String source) {
            return watched.get(source);
        }
    }
}
