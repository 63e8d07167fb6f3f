package dev.materializer.core.engine;

import dev.materializer.core.MaterializerOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.incremental.ShapeAnalysis;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.stream.Checkpoint;
import dev.materializer.core.stream.StreamListener;
import dev.materializer.core.EngineClock;
import dev.materializer.core.GenerationPlace;
import dev.materializer.core.view.InvalidViewException;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewDefinitionParser;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.write.StatusStore;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the registry equal to the views collection: reads it whole at start and after its stream
 * reopens, and applies each change of a view document. A change that leaves a view's definition as
 * it was (its status written by the engine, metadata of the user) does nothing; a real change
 * replaces the view and rebalances its partition, so cycles appear or break and the freed views
 * run. A view that leaves its target in its partition (deleted, moved, given another target) makes
 * the views of that partition reading the target run, in the same rebalance, downstream order; its
 * rows there go once no reader can hold them ({@link LeftRowsRemoval}). Until that rebalance has
 * ended the change counts as being applied ({@link #applying}), so a wait for freshness that heard
 * it waits for the new definition's run.
 *
 * <p>Threads: {@link #loadAll} runs on the start path; the listener methods on the views stream's
 * thread. Rebalances go to the partitions' lanes.
 */
final class ViewCatalog implements StreamListener {

    private static final Logger log = LoggerFactory.getLogger(ViewCatalog.class);

    private static final String TARGET_FIELD = "targetCollection";

    private final MongoCollection<BsonDocument> views;

    private final ViewRegistry registry;

    private final ViewDefinitionParser parser;

    private final StatusStore status;

    private final PassExecution passes;

    private final PartitionLanes lanes;

    private final SourceFeed feed;

    private final EngineClock clock;

    private final MaterializerOptions options;

    private final PassScheduler scheduler;

    /** Per partition, the changes of view documents whose work in the lane is queued or running. */
    private final Map<String, Integer> applying = new ConcurrentHashMap<>();

    private final LeftRowsRemoval leftRows;

    /** Removes, once no reader can still hold them, the rows a partition's views left in a target. */
    interface LeftRowsRemoval {

        /**
         * Schedules the removal of the rows of the partition in the target, {@code generationGrace}
         * from now, by the owner of the partition, in its lane, if no view of it writes the target then.
         */
        void afterGrace(String partition, String target);
    }

    ViewCatalog(MongoDatabase database, ViewRegistry registry, StatusStore status, PassExecution passes,
            PartitionLanes lanes, SourceFeed feed, EngineClock clock, MaterializerOptions options,
            PassScheduler scheduler, LeftRowsRemoval leftRows) {
        this.scheduler = scheduler;
        this.leftRows = leftRows;
        this.views = database.getCollection(options.viewsCollection(), BsonDocument.class);
        this.registry = registry;
        this.parser = new ViewDefinitionParser(options.partitionField(), options.viewsCollection());
        this.status = status;
        this.passes = passes;
        this.lanes = lanes;
        this.feed = feed;
        this.clock = clock;
        this.options = options;
    }

    /**
     * Reads every view document, registers the valid ones, marks the invalid ones errored, drops
     * views that are gone, and rebalances every partition. A view runs at once when it has never
     * run, is errored, or its definition changed since its last run; the others wait for their
     * sources' changes.
     */
    void loadAll() throws InterruptedException {
        Loaded loaded = readViews();
        noteTargetsGone(loaded);
        removeViewsGone(loaded);
        feed.sync();
        rebalanceOrCatchUp(loaded);
    }

    /**
     * What {@link #loadAll} gathers from the views collection: the ids of the documents it read, the
     * partitions to look at, the views that must run, the targets views left, per partition the
     * targets its view documents name (valid or not), and per valid view the targets its status says
     * it read.
     */
    private record Loaded(Set<String> seen, Set<String> partitions, List<ViewDefinition> toRun, LeftTargets left,
            Map<String, Set<String>> named, Map<ViewDefinition, Set<String>> reads) {
    }

    /** Reads every view document, beginning with the partitions the registry knows. */
    private Loaded readViews() {
        Loaded loaded = new Loaded(new HashSet<>(), new HashSet<>(registry.partitions()), new ArrayList<>(),
                new LeftTargets(), new HashMap<>(), new HashMap<>());
        for (BsonDocument document : views.find()) {
            readView(document, loaded);
        }
        return loaded;
    }

    /**
     * Registers one view document, or marks it errored when invalid, and notes what it names, what
     * its view left and whether the view must run.
     */
    private void readView(BsonDocument document, Loaded loaded) {
        if (document.get(options.partitionField()) instanceof BsonString partition
                && document.get(TARGET_FIELD) instanceof BsonString target) {
            loaded.named().computeIfAbsent(partition.getValue(), key -> new HashSet<>()).add(target.getValue());
        }
        Holding before = document.containsKey("_id") ? holding(ViewKey.idText(document.get("_id"))) : null;
        ViewDefinition view = accept(document);
        if (document.containsKey("_id")) {
            loaded.seen().add(ViewKey.idText(document.get("_id")));
        }
        loaded.left().note(before, document);
        // A view that left its place while no engine heard it: its status still names where it wrote
        loaded.left().noteRecorded(GenerationPlace.of(storedStatus(document)), document);
        if (view != null) {
            loaded.partitions().add(view.partition());
            if (needsRun(view, document)) {
                loaded.toRun().add(view);
            }
            else {
                // Nothing to run: it is what its status says, until a change of its sources says otherwise
                registry.okAsStored(view.key());
            }
            loaded.reads().put(view, StatusStore.readsOf(storedStatus(document)));
        }
    }

    /** Notes the targets valid views read that no view document of their partition names any more. */
    private static void noteTargetsGone(Loaded loaded) {
        // An upstream view that went while no engine heard it (deleted while none ran, or before its
        // rebalance ran): the views that read its target run, and the rows it left go after the grace
        loaded.reads().forEach((view, targets) -> targets.forEach(target -> {
            if (!loaded.named().getOrDefault(view.partition(), Set.of()).contains(target)) {
                loaded.left().noteGone(view.partition(), target);
            }
        }));
    }

    /** Drops the registered views whose documents are gone, noting the targets they left. */
    private void removeViewsGone(Loaded loaded) {
        for (String id : registry.ids()) {
            if (!loaded.seen().contains(id)) {
                loaded.left().note(holding(id), null);
                ViewDefinition removed = registry.remove(id);
                if (removed != null) {
                    loaded.partitions().add(removed.partition());
                }
            }
        }
    }

    /**
     * Rebalances each partition where views move or left a target, and queues the catch-up of the
     * other partitions that have views to run; the rows left go after the grace.
     */
    private void rebalanceOrCatchUp(Loaded loaded) {
        Set<String> runIds = new HashSet<>();
        Map<String, DirtySources> runsByPartition = new HashMap<>();
        loaded.toRun().forEach(view -> {
            runIds.add(view.key().id());
            runsByPartition.computeIfAbsent(view.partition(), key -> new DirtySources())
                .add(view.primarySource(), List.of(view.key().id()));
        });
        LeftTargets left = loaded.left();
        loaded.partitions().addAll(left.partitions());
        left.removeRowsAfterGrace();
        for (String partition : loaded.partitions()) {
            if (!passes.settled(partition) || !left.in(partition).isEmpty()) {
                // Views move into or out of a cycle or a shared target, or left a target others read:
                // the rebalance sorts it out.
                rebalance(partition, view -> runIds.contains(view.key().id()), left.in(partition));
            }
            else if (runsByPartition.containsKey(partition)) {
                // Only views to run: they take turns with the other catch-ups, a few partitions at a time.
                scheduler.catchUp(partition, runsByPartition.get(partition));
            }
            // A partition with nothing to run and nothing to move queues nothing: a restart that runs
            // nothing queues nothing.
        }
    }

    private @Nullable BsonDocument storedStatus(BsonDocument document) {
        return document.get(options.statusField()) instanceof BsonDocument doc ? doc : null;
    }

    /**
     * Whether a view must run at start: never run, errored, changed since its last successful run,
     * written in the format before row versions (its first run rebuilds it in versions), or last
     * written in another target or partition (moved while no engine heard it).
     */
    private boolean needsRun(ViewDefinition view, BsonDocument document) {
        BsonDocument stored = storedStatus(document);
        ViewStatus viewStatus = ViewStatus.fromBson(stored);
        if (viewStatus.generation() == null || viewStatus.generation().isLegacy()
                || viewStatus.state() != ViewState.OK
                || !GenerationPlace.fits(GenerationPlace.of(stored), view.targetCollection(), view.partition())) {
            return true;
        }
        BsonValue fingerprint = stored == null ? null : stored.get(StatusStore.FINGERPRINT_FIELD);
        return fingerprint == null || !fingerprint.isString()
                || !fingerprint.asString().getValue().equals(view.fingerprint());
    }

    /**
     * Registers a view document; gives the definition, or null when invalid. A view whose
     * definition and partition did not change keeps its entry and what the runtime knows of it.
     */
    private @Nullable ViewDefinition accept(BsonDocument document) {
        BsonValue id = document.get("_id");
        try {
            ViewDefinition view = parser.parse(document);
            // A declared incremental key the pipeline does not have is an error of the view
            ShapeAnalysis.of(view);
            ViewDefinition known = registry.definition(view.key().id());
            if (known != null && sameDefinition(known, view)) {
                return known;
            }
            BsonDocument stored = storedStatus(document);
            registry.put(view, ViewStatus.fromBson(stored).generation());
            if (stored != null) {
                registry.noteStatus(view.key(), stored);
            }
            return view;
        }
        catch (InvalidViewException | IllegalArgumentException ex) {
            // The parser refuses what the registry cannot compile; the second kind is a net for a gap between them.
            if (id == null) {
                log.error("A document of {} without _id cannot be a view: {}", options.viewsCollection(), ex.getMessage());
                return null;
            }
            String idText = ViewKey.idText(id);
            String partition = document.get(options.partitionField()) instanceof BsonString text
                    ? text.getValue() : null;
            String target = document.get(TARGET_FIELD) instanceof BsonString text ? text.getValue() : null;
            ViewRegistry.InvalidView known = registry.invalid(idText);
            registry.putInvalid(idText, partition, target, ex.getMessage());
            if (!alreadyErrored(document, ex.getMessage()) && (known == null || !known.error().equals(ex.getMessage()))) {
                log.error("View {} cannot run: {}", idText, ex.getMessage());
                try {
                    status.writeInvalid(id, partition, ex.getMessage(), clock.now());
                }
                catch (MongoException writeFailure) {
                    log.warn("The status of view {} was not written: {}", idText, writeFailure.getMessage());
                }
            }
            return null;
        }
    }

    /** Whether the stored status already says this error: writing it again would only echo through the stream. */
    private boolean alreadyErrored(BsonDocument document, String error) {
        ViewStatus viewStatus = ViewStatus.fromBson(storedStatus(document));
        return viewStatus.state() == ViewState.ERRORED && error.equals(viewStatus.lastError());
    }

    @Override
    public void onChange(String collection, SourceChange change) {
        if (!scheduler.intake()) {
            // After stopIntake no new work starts; the next start reads every view again.
            return;
        }
        try {
            switch (change.operation()) {
                case INSERT, UPDATE, REPLACE -> changed(change.fullDocument());
                case DELETE -> deleted(change.documentId());
                default -> {
                    // Drops and invalidations end the stream; its reopening reloads every view.
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void changed(@Nullable BsonDocument document) throws InterruptedException {
        if (document == null || !document.containsKey("_id")) {
            // Deleted since the change: its delete event follows.
            return;
        }
        String id = ViewKey.idText(document.get("_id"));
        Holding held = holding(id);
        ViewDefinition before = registry.definition(id);
        ViewDefinition after = accept(document);
        if (after != null && after == before) {
            BsonDocument stored = storedStatus(document);
            BsonDocument lastSeen = registry.lastStatus(after.key());
            if (stored != null) {
                registry.noteStatus(after.key(), stored);
            }
            if (statusLost(stored, lastSeen)) {
                // Replaced without its status (a Spring Data save(), say): readers read nothing until a generation is named again
                restoreOrRun(after, lastSeen);
            }
            // Otherwise only the status or the user's metadata changed: the view stays as it runs.
            return;
        }
        LeftTargets left = new LeftTargets();
        left.note(held, document);
        if (after == null && before == null && left.partitions().isEmpty()) {
            return;
        }
        log.info("View {} {}", id, before == null ? after == null ? "left its target" : "added"
                : after == null ? "became invalid" : "changed");
        feed.sync();
        left.removeRowsAfterGrace();
        Set<String> partitions = new HashSet<>(left.partitions());
        if (before != null) {
            partitions.add(before.partition());
        }
        if (after != null) {
            partitions.add(after.partition());
        }
        for (String partition : partitions) {
            rebalance(partition, view -> after != null && view.key().equals(after.key()), left.in(partition));
        }
    }

    private void deleted(@Nullable BsonValue documentId) throws InterruptedException {
        if (documentId == null) {
            return;
        }
        String id = ViewKey.idText(documentId);
        Holding held = holding(id);
        ViewDefinition removed = registry.remove(id);
        if (held == null) {
            return;
        }
        log.info("View {} removed from partition {}", id, held.partition());
        if (removed != null) {
            feed.sync();
        }
        // A removed view can break a cycle: the freed views run; so do the views that read its target.
        rebalance(held.partition(), view -> false, Set.of(held.target()));
        leftRows.afterGrace(held.partition(), held.target());
    }

    /** The partition and target the view's document named when last read, valid or not; null when unknown. */
    private @Nullable Holding holding(String id) {
        ViewDefinition view = registry.definition(id);
        if (view != null) {
            return new Holding(view.partition(), view.targetCollection());
        }
        ViewRegistry.InvalidView invalid = registry.invalid(id);
        return invalid == null || invalid.partition() == null || invalid.target() == null ? null
                : new Holding(invalid.partition(), invalid.target());
    }

    /** The partition and target a view document names. */
    private record Holding(String partition, String target) {
    }

    /**
     * Puts a lost status back in the view's lane: the newest one read before the replace. Where it
     * cannot be, or it may be stale, the view runs.
     */
    private void restoreOrRun(ViewDefinition view, @Nullable BsonDocument lastSeen) {
        apply(view.partition(), () -> {
            if (scheduler.intake() && !passes.restoreLostStatus(view, lastSeen)) {
                log.warn("View {} of partition {}: its document was replaced without its status field; it runs again",
                        view.key().id(), view.partition());
                scheduler.retry(view.partition(), passes.rebalance(view.partition(), other -> other.key().equals(view.key())));
            }
            return null;
        });
    }

    /**
     * Rebalances a partition in its lane, running the views that read a target the partition's
     * views left; what gives way there stays pending with the scheduler.
     */
    private void rebalance(String partition, Predicate<ViewDefinition> mustRun,
            Set<String> leftTargets) {
        apply(partition, () -> {
            // Stopping: the next start reads every view again and runs what this would have run.
            if (scheduler.intake()) {
                scheduler.retry(partition, passes.rebalance(partition, mustRun, leftTargets));
            }
            return null;
        });
    }

    /**
     * Queues the work of a change of a view document in the partition's lane, counted as being
     * applied from now (before the views stream moves on) until it ended: a wait for freshness
     * that heard the change waits for it. What it could not apply is pending with the scheduler
     * before it ends.
     */
    private void apply(String partition, Callable<@Nullable Void> work) {
        applying.merge(partition, 1, Integer::sum);
        lanes.submit(partition, work).whenComplete((done, failure) ->
                applying.computeIfPresent(partition, (key, count) -> count == 1 ? null : count - 1));
    }

    /**
     * Whether a change of a view document of the partition is still being applied: its rebalance
     * (or restore) is queued or running in the partition's lane.
     * @param partition the partition
     * @return true while such work has not ended
     */
    boolean applying(String partition) {
        return applying.containsKey(partition);
    }

    @Override
    public void onOpened(String collection, boolean resumed, boolean reopened,
            Checkpoint from) {
        if (reopened) {
            log.info("The stream of {} reopened: every view is read again", collection);
            try {
                loadAll();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (MongoException ex) {
                log.warn("The views could not be read again: {}", ex.getMessage());
            }
        }
    }

    @Override
    public void onEnded(String collection, String reason, boolean historyLost) {
        // The reopening reloads every view.
    }

    @Override
    public Checkpoint checkpointAt(String collection, BsonDocument token) {
        // The views stream keeps no checkpoint: a start reads every view document again.
        return Checkpoint.at(token, Set.of(), Set.of());
    }

    /** The engine read a status of the view with a generation, but its document names none any more. */
    private static boolean statusLost(@Nullable BsonDocument stored, @Nullable BsonDocument lastSeen) {
        return ViewStatus.fromBson(stored).generation() == null && ViewStatus.fromBson(lastSeen).generation() != null;
    }

    private static boolean sameDefinition(ViewDefinition a, ViewDefinition b) {
        return a.fingerprint().equals(b.fingerprint()) && a.partition().equals(b.partition());
    }

    /**
     * Per partition, the targets its views left in one change of the views. A view holds its target
     * in its partition while its document names both (see the guard's
     * {@link StatusStore#currentGenerations}); deleted, moved to another partition or given another
     * target, valid or not, it leaves, and what the views reading that target saw of it is gone. A
     * view made invalid that still names both has not left: like any errored view, its last
     * generation stays. Not thread-safe; one per change.
     */
    private final class LeftTargets {

        private final Map<String, Set<String>> byPartition = new HashMap<>();

        /**
         * Notes the target a view left, if it left one.
         * @param before what the view's document named before the change
         * @param now its document now; null when deleted
         */
        void note(@Nullable Holding before, @Nullable BsonDocument now) {
            if (before == null) {
                return;
            }
            BsonValue partition = now == null ? null : now.get(options.partitionField());
            BsonValue target = now == null ? null : now.get(TARGET_FIELD);
            boolean stays = partition != null && partition.isString()
                    && partition.asString().getValue().equals(before.partition())
                    && target != null && target.isString() && target.asString().getValue().equals(before.target());
            if (!stays) {
                byPartition.computeIfAbsent(before.partition(), key -> new HashSet<>()).add(before.target());
            }
        }

        /** Notes a target of a partition that no view document of it names any more, though a view read it. */
        void noteGone(String partition, String target) {
            byPartition.computeIfAbsent(partition, key -> new HashSet<>()).add(target);
        }

        /**
         * Notes the place a view's status says its rows are in, when its document no longer names
         * it: the view left it (before a restart, say) and has not run since.
         */
        void noteRecorded(@Nullable GenerationPlace place, BsonDocument now) {
            if (place != null) {
                note(new Holding(place.partition(), place.collection()), now);
            }
        }

        Set<String> in(String partition) {
            return byPartition.getOrDefault(partition, Set.of());
        }

        Set<String> partitions() {
            return byPartition.keySet();
        }

        /** Their rows go once no reader can hold them (and no view of the partition writes there again). */
        void removeRowsAfterGrace() {
            byPartition.forEach((partition, targets) ->
                    targets.forEach(target -> leftRows.afterGrace(partition, target)));
        }
    }
}
