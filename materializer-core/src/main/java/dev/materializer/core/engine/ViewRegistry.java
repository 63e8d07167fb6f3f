package dev.materializer.core.engine;

import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.WriteMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.WatchedFields;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.ShapeAnalysis;
import dev.materializer.core.incremental.ViewShape;
import dev.materializer.core.view.CoveredTimes;
import dev.materializer.core.Generation;
import dev.materializer.core.view.InvalidViewException;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * The views this instance knows, by id (an {@code _id} is unique in the views collection, so a view
 * that moves to another partition replaces its old self), with what the runtime knows of each:
 * state, generation, last run. It keeps the indexes the hot paths need, so their cost is that of the
 * partitions they touch, not of every view: the views of each partition; per source, the views of
 * each partition reading it; the number of views in each state, in all and per partition (so the
 * views of the partitions this instance owns are counted without visiting them); and the compiled
 * {@code sourceFields} of each view.
 *
 * <p>Threads: the stream threads route (read) at the same time, the pass workers read and record
 * outcomes, the views stream adds and removes views. Reads take no lock: the indexes are concurrent
 * maps of immutable lists, replaced whole when a view is added or removed. Adding and removing (rare)
 * are serialized by one lock that no read waits on. The run-time fields of a view are guarded by the
 * view's own entry.
 */
final class ViewRegistry {

    private final String partitionField;

    /** Serializes adds and removes, so the indexes change together; readers never take it. */
    private final Object structure = new Object();

    private final Map<String, Entry> byId = new ConcurrentHashMap<>();

    private final Map<String, InvalidView> invalid = new ConcurrentHashMap<>();

    /**
     * Per partition, the target each of its invalid view documents names (by id): what a pass looks
     * at for shared targets.
     */
    private final Map<String, Map<String, String>> invalidTargets = new ConcurrentHashMap<>();

    /** Per partition, its views. */
    private final Map<String, List<Entry>> byPartition = new ConcurrentHashMap<>();

    /** Per source, per partition, the views reading the source. */
    private final Map<String, Map<String, List<Entry>>> bySource = new ConcurrentHashMap<>();

    /**
     * Definitions shared between partitions, by fingerprint: a view of one template in ten thousand
     * tenants keeps one parsed pipeline and one compiled set of watched fields. Guarded by
     * {@code structure}.
     */
    private final Map<String, Shared> shared = new HashMap<>();

    /** Views in each run-time state (the invalid ones are counted apart). */
    private final StateCounts counts = new StateCounts();

    /**
     * Per partition, its views in each run-time state; a partition leaves when its last view does.
     * Added and removed under {@code structure}.
     */
    private final Map<String, StateCounts> countsByPartition = new ConcurrentHashMap<>();

    ViewRegistry(String partitionField) {
        this.partitionField = partitionField;
    }

    /**
     * Adds or replaces a view.
     * @return the definition it replaced, or null
     */
    @Nullable ViewDefinition put(ViewDefinition view, @Nullable Generation generation) {
        synchronized (structure) {
            Shared definition = shared.computeIfAbsent(view.fingerprint(), key -> new Shared(view, partitionField));
            definition.users++;
            Entry added = new Entry(definition.template.sharedWith(view.id(), view.partition()), generation,
                    definition.watched, definition,
                    countsByPartition.computeIfAbsent(view.partition(), partition -> new StateCounts()));
            String id = added.key.id();
            forgetInvalid(id);
            Entry previous = byId.put(id, added);
            if (previous != null) {
                unindex(previous);
            }
            index(added);
            if (previous != null) {
                dropCountsIfEmpty(previous.key.partition());
            }
            return previous == null ? null : previous.view;
        }
    }

    /** Removes a view by id; gives the definition removed, or null. */
    @Nullable ViewDefinition remove(String id) {
        synchronized (structure) {
            forgetInvalid(id);
            Entry removed = byId.remove(id);
            if (removed == null) {
                return null;
            }
            unindex(removed);
            dropCountsIfEmpty(removed.key.partition());
            return removed.view;
        }
    }

    void putInvalid(String id, @Nullable String partition, String error) {
        putInvalid(id, partition, null, error);
    }

    /** Keeps a view document that cannot run, with the partition and target it names, when it names them. */
    void putInvalid(String id, @Nullable String partition, @Nullable String target, String error) {
        synchronized (structure) {
            Entry removed = byId.remove(id);
            if (removed != null) {
                unindex(removed);
                dropCountsIfEmpty(removed.key.partition());
            }
            forgetInvalid(id);
            InvalidView view = new InvalidView(id, partition, target, error);
            invalid.put(id, view);
            if (partition != null && target != null) {
                invalidTargets.computeIfAbsent(partition, key -> new ConcurrentHashMap<>()).put(id, target);
            }
        }
    }

    /** Drops an invalid view from both indexes; under {@code structure}. */
    private void forgetInvalid(String id) {
        InvalidView forgotten = invalid.remove(id);
        if (forgotten != null && forgotten.partition() != null) {
            invalidTargets.computeIfPresent(forgotten.partition(), (key, targets) -> {
                targets.remove(id);
                return targets.isEmpty() ? null : targets;
            });
        }
    }

    private void index(Entry entry) {
        String partition = entry.key.partition();
        byPartition.merge(partition, List.of(entry), ViewRegistry::plus);
        for (String source : entry.view.collections()) {
            bySource.computeIfAbsent(source, key -> new ConcurrentHashMap<>()).merge(partition, List.of(entry),
                    ViewRegistry::plus);
        }
        ViewState state = entry.state();
        counts.add(state, 1);
        entry.partitionCounts.add(state, 1);
    }

    /** Forgets the counts of a partition that has no view left; under {@code structure}. */
    private void dropCountsIfEmpty(String partition) {
        if (!byPartition.containsKey(partition)) {
            countsByPartition.remove(partition);
        }
    }

    private void unindex(Entry entry) {
        String partition = entry.key.partition();
        byPartition.computeIfPresent(partition, (key, list) -> minus(list, entry));
        for (String source : entry.view.collections()) {
            Map<String, List<Entry>> readers = bySource.get(source);
            if (readers != null) {
                readers.computeIfPresent(partition, (key, list) -> minus(list, entry));
                if (readers.isEmpty()) {
                    bySource.remove(source);
                }
            }
        }
        entry.retire(counts);
        if (--entry.definition.users == 0) {
            shared.remove(entry.view.fingerprint());
        }
    }

    /** The number of distinct definitions kept. */
    // Visible for testing
    int sharedDefinitions() {
        synchronized (structure) {
            return shared.size();
        }
    }

    /** One parsed definition and its compiled watched fields, shared by the views that have it. */
    private static final class Shared {

        private static final AffectedKeys OF_ANOTHER_VIEW = AffectedKeys.fullPass(
                "a change of the rows of another view, which its readers see only from its next flip");

        private final ViewDefinition template;

        private final Map<String, WatchedFields> watched;

        /** The views using it; guarded by the registry's {@code structure}. */
        private int users;

        /** Proved once per definition: whether its passes can be key-scoped, and by which key. */
        private final ViewShape shape;

        /** The mark of a view whose passes are always whole, made once. */
        private final AffectedKeys whole;

        /** The field naming a document's partition: an update of it moved the document. */
        private final String partitionField;

        Shared(ViewDefinition template, String partitionField) {
            this.template = template;
            this.partitionField = partitionField;
            this.shape = shapeOf(template);
            this.whole = AffectedKeys.fullPass("the view is not incremental: " + shape.fullReason());
            Map<String, WatchedFields> compiled = new HashMap<>();
            for (String source : template.collections()) {
                compiled.put(source, WatchedFields.of(template.sourceFields().getOrDefault(source, List.of()),
                        partitionField));
            }
            this.watched = Map.copyOf(compiled);
        }

        /** The keys of the view's rows a change affects; never throws for an event it cannot read. */
        AffectedKeys keysOf(String source, SourceChange change) {
            if (!shape.isIncremental()) {
                return whole;
            }
            if (ViewFilter.isRowVersion(change.fullDocument()) || ViewFilter.isRowVersion(change.fullDocumentBeforeChange())) {
                // What the upstream view's readers see moves at its flip, not at this write: recompute all
                return OF_ANOTHER_VIEW;
            }
            try {
                // A key path the images do not carry (a projected stream) makes it a full pass there
                return AffectedKeys.of(shape, source, change, partitionField);
            }
            catch (RuntimeException ex) {
                return AffectedKeys.fullPass("the keys of a change could not be read: " + ex);
            }
        }

        /** The document paths of a source whose values give this view's keys. */
        List<String> pathsOf(String source) {
            if (!shape.isIncremental()) {
                return List.of();
            }
            List<String> paths = new ArrayList<>();
            if (source.equals(shape.primarySource())) {
                paths.addAll(shape.keyPaths());
            }
            shape.lookups().forEach(link -> {
                if (link.foreignCollection().equals(source)) {
                    paths.add(link.foreignField());
                }
            });
            return paths;
        }

        private static ViewShape shapeOf(ViewDefinition view) {
            try {
                return ShapeAnalysis.of(view);
            }
            catch (InvalidViewException ex) {
                // The catalog refuses such a view before it gets here; were one to, it runs whole
                return ViewShape.whole(view.primarySource(), ex.getMessage());
            }
        }
    }

    private static List<Entry> plus(List<Entry> list, List<Entry> added) {
        List<Entry> copy = new ArrayList<>(list.size() + added.size());
        copy.addAll(list);
        copy.addAll(added);
        return List.copyOf(copy);
    }

    /** The list without the entry; null (the key goes) when nothing is left. */
    private static @Nullable List<Entry> minus(List<Entry> list, Entry removed) {
        List<Entry> copy = new ArrayList<>(list);
        copy.remove(removed);
        return copy.isEmpty() ? null : List.copyOf(copy);
    }

    @Nullable InvalidView invalid(String id) {
        return invalid.get(id);
    }

    /** The targets that documents of the partition that cannot run name; read from their index. */
    Set<String> targetsOfInvalid(String partition) {
        Map<String, String> targets = invalidTargets.get(partition);
        return targets == null ? Set.of() : new HashSet<>(targets.values());
    }

    /** The last error the runtime recorded for the view, if any. */
    @Nullable String lastError(ViewKey key) {
        Entry entry = entryOf(key);
        return entry == null ? null : entry.lastError();
    }

    @Nullable ViewDefinition definition(String id) {
        Entry entry = byId.get(id);
        return entry == null ? null : entry.view;
    }

    @Nullable ViewDefinition find(String partition, String id) {
        Entry entry = byId.get(id);
        return entry != null && entry.key.partition().equals(partition) ? entry.view : null;
    }

    Set<String> ids() {
        Set<String> ids = new HashSet<>(byId.keySet());
        ids.addAll(invalid.keySet());
        return ids;
    }

    /** The number of views known, valid or not. */
    int size() {
        return byId.size() + invalid.size();
    }

    List<ViewDefinition> views(String partition) {
        List<Entry> entries = byPartition.getOrDefault(partition, List.of());
        List<ViewDefinition> views = new ArrayList<>(entries.size());
        entries.forEach(entry -> views.add(entry.view));
        return views;
    }

    Set<String> partitions() {
        return new TreeSet<>(byPartition.keySet());
    }

    /** Every source some view reads. */
    Set<String> sources() {
        return new TreeSet<>(bySource.keySet());
    }

    /** The views reading the source, in every partition. */
    List<ViewDefinition> viewsReading(String source) {
        List<ViewDefinition> views = new ArrayList<>();
        bySource.getOrDefault(source, Map.of()).values().forEach(list -> list.forEach(entry -> views.add(entry.view)));
        return views;
    }

    /**
     * Per partition, the views reading the source that have run before (they have a generation):
     * those that may have missed changes while nothing watched the source. A view never run runs
     * through its rebalance anyway.
     */
    Map<String, List<String>> materializedViewsReading(String source) {
        Map<String, List<String>> views = new HashMap<>();
        bySource.getOrDefault(source, Map.of()).forEach((partition, list) -> {
            for (Entry entry : list) {
                if (entry.generation() != null) {
                    views.computeIfAbsent(partition, key -> new ArrayList<>()).add(entry.key.id());
                }
            }
        });
        return views;
    }

    /** The partitions with a view reading the source. */
    Set<String> partitionsReading(String source) {
        return new HashSet<>(bySource.getOrDefault(source, Map.of()).keySet());
    }

    /**
     * Per partition among those given (or all when null), the views that read the source and whose
     * watched fields the change may touch. Touches only the given partitions' views of the source.
     */
    Map<String, Map<String, AffectedKeys>> viewsToMark(String source, SourceChange change, @Nullable Set<String> among) {
        Map<String, List<Entry>> readers = bySource.get(source);
        if (readers == null) {
            return Map.of();
        }
        Map<String, Map<String, AffectedKeys>> marked = new HashMap<>();
        if (among == null) {
            readers.forEach((partition, list) -> mark(source, change, partition, list, marked));
        }
        else {
            for (String partition : among) {
                List<Entry> list = readers.get(partition);
                if (list != null) {
                    mark(source, change, partition, list, marked);
                }
            }
        }
        return marked;
    }

    /** Marks the views of the list the change may touch, each with the keys of its rows it affects. */
    private static void mark(String source, SourceChange change, String partition, List<Entry> list,
            Map<String, Map<String, AffectedKeys>> marked) {
        for (Entry entry : list) {
            if (entry.watched(source).mayBeTouchedBy(change)) {
                marked.computeIfAbsent(partition, key -> new HashMap<>(list.size() * 2))
                    .put(entry.key.id(), entry.definition.keysOf(source, change));
            }
        }
    }

    /**
     * The document paths a change stream of the source keeps in projected events, so the key-scoped
     * views reading it can tell their keys: the key paths and {@code $lookup} foreign fields.
     */
    Set<String> keyPathsOf(String source) {
        Set<String> paths = new TreeSet<>();
        bySource.getOrDefault(source, Map.of()).values()
            .forEach(list -> list.forEach(entry -> paths.addAll(entry.definition.pathsOf(source))));
        return paths;
    }

    /**
     * Whether a key-scoped view reading the source needs the key a document had before a change,
     * which only a pre-image gives: the source is the primary of a view whose key is not the
     * document id, or a {@code $lookup}'s foreign collection.
     */
    boolean needsOldKeys(String source) {
        for (List<Entry> list : bySource.getOrDefault(source, Map.of()).values()) {
            for (Entry entry : list) {
                ViewShape shape = entry.definition.shape;
                if (!shape.isIncremental()) {
                    continue;
                }
                boolean primary = shape.primarySource().equals(source);
                if (!primary || !shape.keyIsInDocumentId()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The proved shape of a view, for a key-scoped pass; a FULL shape for a view it does not know. */
    ViewShape shape(ViewKey key) {
        Entry entry = entryOf(key);
        return entry == null ? ViewShape.whole("", "the view is not registered") : entry.definition.shape;
    }

    /** Whether the view is held back from running: in a cycle, or sharing its target. */
    boolean isBlocked(ViewKey key) {
        Entry entry = entryOf(key);
        return entry != null && entry.state().blocked();
    }

    @Nullable ViewState state(ViewKey key) {
        Entry entry = entryOf(key);
        return entry == null ? null : entry.state();
    }

    void setState(ViewKey key, ViewState state, @Nullable String error) {
        Entry entry = entryOf(key);
        if (entry != null) {
            entry.setState(state, error, counts);
        }
    }

    /**
     * Puts a view no pass of this instance has judged yet ({@link ViewState#PENDING}) in the state
     * {@code ok}, as its stored status says: a start that finds nothing to run for it (same
     * definition, in its place, ok) would otherwise show it pending, and never fresh, until its
     * sources change. Atomic with the passes' own state changes: a state a pass set stays.
     */
    void okAsStored(ViewKey key) {
        Entry entry = entryOf(key);
        if (entry != null) {
            entry.setStateIf(ViewState.PENDING, ViewState.OK, counts);
        }
    }

    void recordPass(ViewKey key, PassReport report, Instant at) {
        Entry entry = entryOf(key);
        if (entry != null) {
            entry.recordPass(report, at);
        }
    }

    /** Records a reconcile run, and the rows of drift it found (0 when in sync). */
    void recordReconcile(ViewKey key, Instant at, long driftRows) {
        Entry entry = entryOf(key);
        if (entry != null) {
            entry.recordReconcile(at, driftRows);
        }
    }

    @Nullable Generation generation(ViewKey key) {
        Entry entry = byId.get(key.id());
        return entry == null ? null : entry.generation();
    }

    /**
     * Records a status of the view as read from its document (by the views stream, or after a pass),
     * unless the one recorded is newer: the newest status known is what a restore puts back.
     * @param status the status field as stored
     */
    void noteStatus(ViewKey key, BsonDocument status) {
        Entry entry = entryOf(key);
        if (entry != null) {
            entry.noteStatus(status);
        }
    }

    /** The newest status of the view this instance has read, as stored; null when none. */
    @Nullable BsonDocument lastStatus(ViewKey key) {
        Entry entry = entryOf(key);
        return entry == null ? null : entry.lastStatus();
    }

    /**
     * The time up to which the newest status of the view this instance has read covers a collection
     * ({@link CoveredTimes}), without a copy of the status: asked for every event heard.
     * @return the time, or null when no status or no time of it is known
     */
    @Nullable BsonTimestamp coveredTime(ViewKey key, String collection) {
        Entry entry = entryOf(key);
        return entry == null ? null : entry.coveredTime(collection);
    }

    /** The entry of the key, when the view is still in that partition. */
    private @Nullable Entry entryOf(ViewKey key) {
        Entry entry = byId.get(key.id());
        return entry != null && entry.key.partition().equals(key.partition()) ? entry : null;
    }

    List<ViewSnapshot> snapshot() {
        List<ViewSnapshot> views = new ArrayList<>(size());
        for (Entry entry : byId.values()) {
            views.add(entry.snapshot());
        }
        for (InvalidView view : invalid.values()) {
            views.add(invalidSnapshot(view));
        }
        return views;
    }

    /** The views of one partition (invalid ones with it included), from its index. */
    List<ViewSnapshot> snapshot(String partition) {
        List<ViewSnapshot> views = new ArrayList<>();
        byPartition.getOrDefault(partition, List.of()).forEach(entry -> views.add(entry.snapshot()));
        for (InvalidView view : invalid.values()) {
            if (partition.equals(view.partition())) {
                views.add(invalidSnapshot(view));
            }
        }
        return views;
    }

    /** One view, valid or not, when it is in that partition. */
    @Nullable ViewSnapshot snapshotOf(String partition, String id) {
        Entry entry = byId.get(id);
        if (entry != null) {
            return entry.key.partition().equals(partition) ? entry.snapshot() : null;
        }
        InvalidView view = invalid.get(id);
        return view != null && partition.equals(view.partition() == null ? "" : view.partition())
                ? invalidSnapshot(view) : null;
    }

    private static ViewSnapshot invalidSnapshot(InvalidView view) {
        return new ViewSnapshot(view.partition() == null ? "" : view.partition(), view.id(), ViewState.ERRORED,
                List.of(), "", null, null, view.error(), null, null);
    }

    /** The number of views in each state, for gauges: read from counters, no view is visited. */
    Map<ViewState, Integer> countByState() {
        Map<ViewState, Integer> byState = new EnumMap<>(ViewState.class);
        counts.addTo(byState);
        byState.merge(ViewState.ERRORED, invalid.size(), Integer::sum);
        return byState;
    }

    /**
     * The number of views of some partitions in each state: read from the counters of
     * each partition, no view is visited (the invalid views, few, are). An invalid view that names
     * no partition counts for the partition {@code ""}.
     * @param partitions which partitions count
     */
    Map<ViewState, Integer> countByState(Predicate<String> partitions) {
        Map<ViewState, Integer> byState = new EnumMap<>(ViewState.class);
        for (ViewState state : ViewState.values()) {
            byState.put(state, 0);
        }
        countsByPartition.forEach((partition, partitionCounts) -> {
            if (partitions.test(partition)) {
                partitionCounts.addTo(byState);
            }
        });
        for (InvalidView view : invalid.values()) {
            if (partitions.test(view.partition() == null ? "" : view.partition())) {
                byState.merge(ViewState.ERRORED, 1, Integer::sum);
            }
        }
        return byState;
    }

    /** Views in each run-time state, by counters that change with each view's state. */
    private static final class StateCounts {

        private final Map<ViewState, AtomicInteger> byState = new EnumMap<>(ViewState.class);

        StateCounts() {
            for (ViewState state : ViewState.values()) {
                byState.put(state, new AtomicInteger());
            }
        }

        void add(ViewState state, int delta) {
            byState.get(state).addAndGet(delta);
        }

        void addTo(Map<ViewState, Integer> sums) {
            byState.forEach((state, count) -> sums.merge(state, count.get(), Integer::sum));
        }
    }

    /**
     * A view document that cannot run, with why; the partition and target its document names, when
     * it names them as strings.
     */
    record InvalidView(String id, @Nullable String partition, @Nullable String target, String error) {
    }

    /** One view and what the run time knows of it; its mutable fields are guarded by itself. */
    private static final class Entry {

        private final ViewDefinition view;

        private final ViewKey key;

        /** Compiled when the definition is first registered: routing never builds anything that could fail. */
        private final Map<String, WatchedFields> watched;

        private ViewState state = ViewState.PENDING;

        private boolean retired;

        private @Nullable String lastError;

        private @Nullable Generation generation;

        /** The newest status of the view read from its document; never handed out without a copy. */
        private @Nullable BsonDocument lastStatus;

        private @Nullable Instant lastRun;

        private @Nullable PassOutcome lastOutcome;

        private @Nullable WriteMode lastMode;

        private @Nullable PassScope lastScope;

        private @Nullable String lastScopeNote;

        private @Nullable Instant lastReconciled;

        private long driftRows;

        private final Shared definition;

        /** The counts of the view's partition, which it moves between with its state. */
        private final StateCounts partitionCounts;

        Entry(ViewDefinition view, @Nullable Generation generation, Map<String, WatchedFields> watched, Shared definition,
                StateCounts partitionCounts) {
            this.view = view;
            this.key = view.key();
            this.generation = generation;
            this.watched = watched;
            this.definition = definition;
            this.partitionCounts = partitionCounts;
        }

        WatchedFields watched(String source) {
            return watched.get(source);
        }

        synchronized ViewState state() {
            return state;
        }

        synchronized @Nullable String lastError() {
            return lastError;
        }

        synchronized void setState(ViewState next, @Nullable String error, StateCounts counts) {
            if (!retired && next != state) {
                counts.add(state, -1);
                counts.add(next, 1);
                partitionCounts.add(state, -1);
                partitionCounts.add(next, 1);
            }
            state = next;
            lastError = error;
        }

        synchronized void setStateIf(ViewState expected, ViewState next, StateCounts counts) {
            if (state == expected) {
                setState(next, null, counts);
            }
        }

        /** Leaves the counts: the view is gone or replaced. */
        synchronized void retire(StateCounts counts) {
            if (!retired) {
                retired = true;
                counts.add(state, -1);
                partitionCounts.add(state, -1);
            }
        }

        synchronized @Nullable Generation generation() {
            return generation;
        }

        /**
         * Keeps the newer of two statuses: attempts and generation numbers only grow (a restore keeps
         * them), so the one with more attempts, then the higher generation, is the later; on a tie
         * the one recorded last.
         */
        synchronized void noteStatus(BsonDocument status) {
            ViewStatus noted = ViewStatus.fromBson(status);
            if (lastStatus != null) {
                ViewStatus known = ViewStatus.fromBson(lastStatus);
                int order = Long.compare(noted.attempts(), known.attempts());
                if (order < 0 || (order == 0 && numberOf(noted.generation()) < numberOf(known.generation()))) {
                    return;
                }
            }
            lastStatus = status.clone();
            if (noted.generation() != null) {
                generation = noted.generation();
            }
        }

        synchronized @Nullable BsonDocument lastStatus() {
            return lastStatus == null ? null : lastStatus.clone();
        }

        synchronized @Nullable BsonTimestamp coveredTime(String collection) {
            return CoveredTimes.of(lastStatus, collection);
        }

        private static long numberOf(@Nullable Generation generation) {
            return generation == null ? 0 : generation.number();
        }

        synchronized void recordPass(PassReport report, Instant at) {
            lastRun = at;
            lastOutcome = report.outcome();
            lastMode = report.mode();
            lastScope = report.scope();
            lastScopeNote = report.scopeNote();
        }

        synchronized void recordReconcile(Instant at, long drift) {
            lastReconciled = at;
            driftRows += drift;
        }

        synchronized ViewSnapshot snapshot() {
            return new ViewSnapshot(key.partition(), key.id(), state, view.collections(),
                    view.targetCollection(), generation == null ? null : generation.toString(), lastRun, lastError,
                    lastOutcome, lastMode, lastReconciled, driftRows, lastScope, lastScopeNote);
        }
    }
}
