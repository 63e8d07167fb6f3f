package dev.materializer.core;

import java.time.Duration;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.graph.DependencyOrder;
import dev.materializer.core.graph.Lineage;
import dev.materializer.core.incremental.PassPlanner;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.time.EngineClock;
import dev.materializer.core.time.Durations;
import dev.materializer.core.view.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewKey;
import dev.materializer.core.view.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.write.BatchMember;
import dev.materializer.core.write.BatchRun;
import dev.materializer.core.write.LostStatus;
import dev.materializer.core.write.PassStatus;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.ViewRunner;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of one partition: its passes (the dirty views in dependency order, a changed view
 * dirtying its target so the views after it run in the same pass), its rebalances (views moving
 * into and out of cycles and shared targets; the views reading a target its views left run), and
 * one-view refreshes. Each method runs in the partition's lane, so the work of a partition is
 * serial. Which view holds a target several name ({@link TargetClaims}) is decided from the view
 * documents at each rebalance and again before each pass, so the owner never runs a view it should
 * hold back, whatever another instance decided when it did not own the partition.
 *
 * <p>What it guarantees: every view a pass should run either ends in a recorded outcome (its
 * status {@code ok} or {@code errored} with the message) or is handed back as work to run again —
 * whatever it throws. A failure of one view never ends the pass of the others. Views that gave
 * way, or met a failure of the deployment, are returned to the caller as marks, which the
 * scheduler keeps pending until they have run; any other failure is the view's error, so a bug
 * never retries without end.
 *
 * <p>Passes and rebalances run only in partitions this instance owns; a pass taken in a partition
 * another instance owns by then says it ran elsewhere ({@link PassScheduler.Ran#elsewhere()}), so it
 * never counts as the pass that applied its marks. A refresh runs wherever it is asked for.
 *
 * <p>Threads: called on the lanes' pool threads only; shared state lives in the registry (which is
 * synchronized) and in MongoDB.
 */
final class PassExecution implements PassScheduler.PassRunner {

    private static final Logger log = LoggerFactory.getLogger(PassExecution.class);

    private final ViewRegistry registry;

    private volatile @Nullable ViewRunner runner;

    private final StatusStore status;

    private final EngineClock clock;

    private final MaterializerListener listener;

    private final MaterializerOptions options;

    private final Sweeps sweeps;

    private final Predicate<String> owns;

    private final LostStatus lostStatus;

    /** Whether the engine is stopping or stopped: a failure then may be the close itself. */
    private final BooleanSupplier stopping;

    private final TargetClaims claims;

    private final HeardChanges heard;

    /** The most partitions one pass runs together; 1 runs every partition alone. */
    private final int batchSize;

    private final BatchSelection batching;

    PassExecution(ViewRegistry registry, StatusStore status, LostStatus lostStatus, EngineClock clock,
            MaterializerListener listener, MaterializerOptions options, Predicate<String> owns, Sweeps sweeps,
            BooleanSupplier stopping, HeardChanges heard) {
        this.heard = heard;
        this.batchSize = options.passBatchSize();
        this.owns = owns;
        this.stopping = stopping;
        this.lostStatus = lostStatus;
        this.registry = registry;
        this.status = status;
        this.clock = clock;
        this.listener = listener;
        this.options = options;
        this.sweeps = sweeps;
        this.claims = new TargetClaims(registry, status);
        this.batching = new BatchSelection(registry, claims, this::readsViewTargets);
    }

    /** The writer, chosen once the deployment's capabilities are known. */
    void useRunner(ViewRunner runner) {
        this.runner = runner;
    }

    /** Schedules the removal of a view's old generations once its grace time has passed. */
    interface Sweeps {

        void after(Duration delay, ViewDefinition view);
    }

    /** What a refresh gives: the report of the view asked for, and what must run again. */
    record Refreshed(PassReport report, DirtySources retries) {
    }

    @Override
    public DirtySources runPass(String partition, DirtySources dirty) {
        return run(partition, dirty).retries();
    }

    @Override
    public PassScheduler.Ran run(String partition, DirtySources dirty) {
        if (!owns.test(partition)) {
            // Another instance owns it now and catches it up when it takes it: the change is its to run,
            // and this pass applied none of it (a wait for freshness must not count it).
            log.debug("Partition {} is another instance's now: its pass leaves {} to it", partition, dirty);
            return PassScheduler.Ran.elsewhere();
        }
        return PassScheduler.Ran.here(runOwned(partition, dirty));
    }

    /**
     * Runs the pass, and with it the waiting passes of other partitions whose marks name only views
     * of the definitions this pass has key-scoped work for ({@link BatchSelection}): their key-scoped
     * passes run in one batch per definition and target ({@link ViewRunner#runBatch}), then every
     * partition runs what is left of its pass — the views handed back, those downstream of a view that
     * changed — in dependency order, as a pass of its own would. Each partition's outcome is its own.
     */
    @Override
    public Map<String, PassScheduler.Ran> runWith(String partition, DirtySources dirty,
            PassScheduler.Companions companions) {
        ViewRunner current = runner;
        if (batchSize < 2 || current == null || !owns.test(partition)) {
            return Map.of(partition, run(partition, dirty));
        }
        Set<String> definitions = batching.definitionsOf(partition, dirty);
        if (definitions.isEmpty()) {
            return Map.of(partition, run(partition, dirty));
        }
        Map<String, DirtySources> others = companions.take(batchSize - 1,
                (other, marks) -> owns.test(other) && batching.onlyOf(other, marks, definitions));
        if (others.isEmpty()) {
            return Map.of(partition, run(partition, dirty));
        }
        Map<String, DirtySources> batch = new LinkedHashMap<>();
        batch.put(partition, dirty);
        batch.putAll(others);
        return runBatch(current, batch);
    }

    private Map<String, PassScheduler.Ran> runBatch(ViewRunner current, Map<String, DirtySources> batch) {
        Map<String, PassScheduler.Ran> ran = new HashMap<>();
        Map<String, DirtySources> retriesOf = new HashMap<>();
        BsonTimestamp newest = null;
        for (Map.Entry<String, DirtySources> entry : batch.entrySet()) {
            if (!owns.test(entry.getKey())) {
                ran.put(entry.getKey(), PassScheduler.Ran.elsewhere());
                continue;
            }
            retriesOf.put(entry.getKey(), new DirtySources());
            BsonTimestamp time = entry.getValue().clusterTime();
            if (time != null && (newest == null || time.compareTo(newest) > 0)) {
                newest = time;
            }
        }
        if (newest != null) {
            try {
                current.awaitClusterTime(newest);
            }
            catch (MongoException ex) {
                log.warn("A batch of {} partitions could not read at the time of its changes ({}); they run again in {}",
                        retriesOf.size(), ex.getMessage(), Durations.text(options.rewatch()));
                retriesOf.keySet().forEach(partition -> ran.put(partition, PassScheduler.Ran.here(batch.get(partition))));
                return ran;
            }
        }
        Set<ViewKey> done = new HashSet<>();
        Map<String, List<Batched>> groups = new LinkedHashMap<>();
        for (String partition : retriesOf.keySet()) {
            DirtySources dirty = batch.get(partition);
            for (ViewDefinition view : batching.batchable(partition, dirty)) {
                PassPlanner.Plan plan = plan(current, view, dirty);
                if (plan.scope() != null) {
                    PassStatus note = new PassStatus(clock.now(), covered(view, dirty, retriesOf.get(partition)),
                            targetsRead(view));
                    groups.computeIfAbsent(view.fingerprint() + "\0" + view.targetCollection(), key -> new ArrayList<>())
                        .add(new Batched(new BatchMember(view, plan.scope(), note), dirty, retriesOf.get(partition)));
                }
            }
        }
        for (List<Batched> group : groups.values()) {
            if (group.size() > 1) {
                runGroup(current, group, done);
            }
        }
        for (Map.Entry<String, DirtySources> entry : retriesOf.entrySet()) {
            String partition = entry.getKey();
            DirtySources dirty = batch.get(partition);
            runInOrder(partition, view -> !done.contains(view.key()) && dirty.affects(view.key().id(), view.collections()),
                    dirty, entry.getValue());
            ran.put(partition, PassScheduler.Ran.here(entry.getValue()));
        }
        return ran;
    }

    /** One view of a batch: its member, and the marks and retries of its partition's pass. */
    private record Batched(BatchMember member, DirtySources dirty, DirtySources retries) {
    }

    /**
     * Runs one group of a batch and records each view it ran as a pass of its own would; the views
     * it hands back run alone in their partition's pass after it. A failure of the deployment hands
     * every view of the group back as a retry.
     */
    private void runGroup(ViewRunner current, List<Batched> group, Set<ViewKey> done) {
        List<BatchMember> members = new ArrayList<>(group.size());
        group.forEach(batched -> members.add(batched.member()));
        BatchRun run;
        try {
            run = current.runBatch(members);
        }
        catch (MongoException ex) {
            log.warn("A batch of {} views could not run: {}; they run again in {}", group.size(), ex.getMessage(),
                    Durations.text(options.rewatch()));
            for (Batched batched : group) {
                listener.onPassStarted(batched.member().view().key());
                runAgain(batched.member().view(), batched.dirty(), batched.retries(), ex.getMessage());
                done.add(batched.member().view().key());
            }
            return;
        }
        for (Batched batched : group) {
            ViewDefinition view = batched.member().view();
            PassReport report = run.reports().get(view.key());
            if (report != null) {
                // Told as it ends: a batch has no moment of its own at which each view starts
                listener.onPassStarted(view.key());
                PassStatus note = batched.member().note();
                recordOutcome(view, report, null, note == null ? new PassStatus(clock.now(), Map.of(), List.of()) : note,
                        batched.dirty(), batched.retries());
                done.add(view.key());
            }
        }
        log.debug("A batch ran {} of {} views together; {} run alone", run.reports().size(), group.size(),
                run.handedBack().size());
    }

    private DirtySources runOwned(String partition, DirtySources dirty) {
        DirtySources retries = new DirtySources();
        ViewRunner current = runner;
        if (current != null && dirty.clusterTime() != null) {
            try {
                current.awaitClusterTime(dirty.clusterTime());
            }
            catch (MongoException ex) {
                // Not there yet (a lagging node, a failover): run it all again later rather than read too early.
                log.warn("Partition {} could not read at the time of its changes ({}); it runs again in {}", partition,
                        ex.getMessage(), Durations.text(options.rewatch()));
                return dirty;
            }
        }
        List<ViewDefinition> views = registry.views(partition);
        Set<String> freed = Set.of();
        if (!claims.contested(partition, views).isEmpty()) {
            // Decided again before each pass, from the view documents: a pass never runs a view another holds back
            try {
                freed = block(partition, views, claims.refusals(partition, views), Set.of(), true);
            }
            catch (MongoException ex) {
                log.warn("Partition {}: which view holds a shared target could not be read ({}); it runs again in {}",
                        partition, ex.getMessage(), Durations.text(options.rewatch()));
                return dirty;
            }
        }
        Set<String> run = freed;
        DirtySources marks = dirty.handover() ? handedOver(partition, views, dirty) : dirty;
        if (marks == null) {
            log.warn("Partition {}: the statuses of its views could not be read for its handover; it runs again in {}",
                    partition, Durations.text(options.rewatch()));
            return dirty;
        }
        runInOrder(partition,
                view -> run.contains(view.key().id()) || marks.affects(view.key().id(), view.collections()), marks,
                retries);
        return retries;
    }

    /**
     * The marks of a pass of a partition just taken over: every view runs whole, but those whose
     * stored status shows their previous owner applied every change this instance heard of them
     * ({@link HeardChanges#applied}); those run only for the marks they have besides (changes heard
     * since the handover). A view the pass lets go is {@code ok} in the registry, as its status says.
     * @return the marks, or null when the statuses could not be read (the pass runs again later)
     */
    private @Nullable DirtySources handedOver(String partition, List<ViewDefinition> views, DirtySources dirty) {
        Map<String, BsonDocument> stored;
        try {
            stored = status.storedStatuses(partition);
        }
        catch (MongoException ex) {
            return null;
        }
        Map<String, List<String>> mustRun = new HashMap<>();
        int applied = 0;
        for (ViewDefinition view : views) {
            BsonDocument viewStatus = stored.get(view.key().id());
            if (heard.applied(view, viewStatus, targetsRead(view))) {
                applied++;
                registry.noteStatus(view.key(), viewStatus);
                if (!registry.isBlocked(view.key())) {
                    registry.setState(view.key(), ViewState.OK, null);
                }
            }
            else {
                mustRun.put(view.key().id(), view.collections());
            }
        }
        log.debug("Partition {} taken over: {} view(s) run, {} left as their previous owner applied them", partition,
                mustRun.size(), applied);
        return dirty.withoutHandover(mustRun);
    }

    /**
     * Moves the views of a partition into and out of cycles and shared targets, and runs the views
     * that need it: the ones the predicate names (new, changed, never run, errored) and the ones
     * freed, then the views downstream of any that changed. In a partition another instance owns,
     * only the registry follows; the owner runs the views and writes their status.
     * @return what must run again
     */
    DirtySources rebalance(String partition, Predicate<ViewDefinition> mustRun) {
        return rebalance(partition, mustRun, Set.of());
    }

    /**
     * A rebalance after views left targets of the partition (deleted, given another target, moved
     * away): the views reading those targets run too, in dependency order, as they would after a
     * change of the rows they read, since what the guard lets them read there is gone.
     * @param leftTargets the targets the partition's views no longer write
     * @return what must run again
     */
    DirtySources rebalance(String partition, Predicate<ViewDefinition> mustRun, Set<String> leftTargets) {
        boolean owned = owns.test(partition);
        List<ViewDefinition> views = registry.views(partition);
        Set<ViewKey> contested = claims.contested(partition, views);
        Map<ViewKey, String> refused = Map.of();
        Set<ViewKey> undecided = Set.of();
        if (!contested.isEmpty()) {
            try {
                refused = claims.refusals(partition, views);
            }
            catch (MongoException ex) {
                // They keep the state they have and run nowhere until a pass decides it (the retries below)
                log.warn("Partition {}: which view holds a shared target could not be read ({}); it is decided again"
                        + " in {}", partition, ex.getMessage(), Durations.text(options.rewatch()));
                undecided = contested;
            }
        }
        Set<String> freed = block(partition, views, refused, undecided, owned);
        DirtySources retries = new DirtySources();
        if (!owned) {
            return retries;
        }
        DirtySources dirty = new DirtySources();
        leftTargets.forEach(dirty::addAll);
        Set<ViewKey> held = undecided;
        runInOrder(partition, view -> !held.contains(view.key()) && (freed.contains(view.key().id())
                || mustRun.test(view) || dirty.affects(view.key().id(), view.collections())), dirty, retries);
        held.forEach(key -> {
            ViewDefinition view = registry.find(partition, key.id());
            if (view != null) {
                retryLater(view, dirty, retries);
            }
        });
        return retries;
    }

    /**
     * Moves the views of a partition into and out of blocks: a target another view holds (or that
     * several name and none holds), a dependency cycle. The owner writes the status of each view
     * that becomes blocked.
     * @param refused per view held back for its target, why
     * @param undecided views whose claim on their target could not be decided: they stay as they are
     * @return the ids of the views freed from a block
     */
    private Set<String> block(String partition, List<ViewDefinition> views, Map<ViewKey, String> refused,
            Set<ViewKey> undecided, boolean owned) {
        Set<String> freed = new HashSet<>();
        DependencyOrder order = DependencyOrder.of(views);
        for (ViewDefinition view : views) {
            ViewKey key = view.key();
            ViewState now = registry.state(key);
            String conflict = refused.get(key);
            if (undecided.contains(key)) {
                continue;
            }
            if (conflict != null) {
                if (now != ViewState.TARGET_SHARED || !conflict.equals(registry.lastError(key))) {
                    registry.setState(key, ViewState.TARGET_SHARED, conflict);
                    if (owned) {
                        log.error("View {} of partition {} does not run: {}", key.id(), partition, conflict);
                        writeStatus(view, ViewState.ERRORED, conflict);
                        listener.onViewErrored(key, conflict);
                    }
                }
            }
            else if (order.cyclic().contains(key)) {
                if (now != ViewState.CYCLE) {
                    registry.setState(key, ViewState.CYCLE, null);
                    if (owned) {
                        log.warn("View {} is in a dependency cycle in partition {}: it does not run", key.id(), partition);
                        writeStatus(view, ViewState.CYCLE, null);
                    }
                }
            }
            else if (now != null && now.blocked()) {
                freed.add(key.id());
                registry.setState(key, ViewState.PENDING, null);
            }
        }
        return freed;
    }

    /**
     * Whether a rebalance of the partition would change nothing of itself: no view is blocked, and
     * none is in a cycle or shares a target. Reads the registry only; callable from any thread.
     */
    boolean settled(String partition) {
        List<ViewDefinition> views = registry.views(partition);
        for (ViewDefinition view : views) {
            ViewState state = registry.state(view.key());
            if (state != null && state.blocked()) {
                return false;
            }
        }
        return claims.contested(partition, views).isEmpty()
                && (views.size() < 2 || DependencyOrder.of(views).cyclic().isEmpty());
    }

    /**
     * Puts back the status of a view whose document an application replaced without it: the newest
     * status this instance read of it (see {@link LostStatus}), so readers do not go blank until a
     * pass and the view is not written anew. Runs in the partition's lane; the owner restores it, any
     * other instance leaves it to the owner.
     * @param lastSeen the newest status read before the replace, or null when none was
     * @return false when the view must run: no status with a generation was known, the write failed,
     *     or the target holds writes after that status, which may be a flip the views stream never showed
     */
    boolean restoreLostStatus(ViewDefinition view, @Nullable BsonDocument lastSeen) {
        if (!owns.test(view.partition())) {
            return true;
        }
        Generation generation = ViewStatus.fromBson(lastSeen).generation();
        if (lastSeen == null || generation == null || generation.isLegacy()) {
            return false;
        }
        try {
            LostStatus.Restored restored = lostStatus.restore(view, lastSeen, clock.now());
            if (restored != LostStatus.Restored.STATUS_PRESENT) {
                log.warn("View {} of partition {}: its document was replaced without its status field; the status"
                        + " of generation {} was put back{}", view.key().id(), view.partition(), generation,
                        restored == LostStatus.Restored.MAY_BE_STALE
                                ? " (the target holds writes after it that the views stream did not show: a pass follows)"
                                : "");
            }
            return restored != LostStatus.Restored.MAY_BE_STALE;
        }
        catch (MongoException ex) {
            log.warn("View {} of partition {}: the status its document lost could not be put back ({}); it runs again",
                    view.key().id(), view.partition(), ex.getMessage());
            return false;
        }
    }

    /**
     * Runs one view now, then the views downstream of it when its rows changed.
     * @return the report of the view itself, and what must run again
     */
    Refreshed refresh(ViewDefinition view) {
        DirtySources dirty = new DirtySources();
        DirtySources retries = new DirtySources();
        PassReport report = runOne(view, dirty, retries);
        if (!dirty.isEmpty()) {
            runInOrder(view.partition(), other -> !other.key().equals(view.key())
                    && dirty.affects(other.key().id(), other.collections()), dirty, retries);
        }
        return new Refreshed(report, retries);
    }

    private void runInOrder(String partition, Predicate<ViewDefinition> shouldRun, DirtySources dirty,
            DirtySources retries) {
        List<ViewDefinition> sorted = DependencyOrder.of(registry.views(partition)).sorted();
        for (ViewDefinition view : sorted) {
            // The registry may have dropped or replaced the view since the order was taken.
            if (registry.find(partition, view.key().id()) != view || registry.isBlocked(view.key())) {
                continue;
            }
            if (shouldRun.test(view)) {
                runOne(view, dirty, retries);
            }
        }
    }

    /**
     * Runs a view, records and reports the outcome, and marks its target dirty when its rows changed.
     * Failures are told apart by the engine's own types: a failure of the deployment (a
     * {@link MongoException}: {@link ViewRunner#run} throws one only then) or an engine that has not
     * started runs again; anything else thrown is a fault of this view alone — a bug of the engine or
     * of its options (a target id strategy that throws) — and makes it {@code errored}, so it never
     * retries without end. Only while the engine stops is a failure not judged (a client closed under
     * a running pass throws {@link IllegalStateException}): the view runs again at the next start.
     */
    private PassReport runOne(ViewDefinition view, DirtySources dirty, DirtySources retries) {
        ViewKey key = view.key();
        listener.onPassStarted(key);
        ViewRunner current = runner;
        if (current == null) {
            log.info("View {} of partition {} waits for the engine to start; it runs again in {}", key.id(),
                    key.partition(), Durations.text(options.rewatch()));
            return runAgain(view, dirty, retries, "the engine has not started");
        }
        PassReport report;
        @Nullable RuntimeException fault = null;
        // What the status says once the pass ends ok, sent with the flip or confirmation that ends it
        PassStatus note = new PassStatus(clock.now(), covered(view, dirty, retries), targetsRead(view));
        try {
            PassPlanner.Plan plan = plan(current, view, dirty);
            report = current.run(view, plan.scope(), note, readsViewTargets(view));
            if (plan.scope() == null) {
                report = report.scoped(PassScope.FULL, plan.wholeBecause());
            }
        }
        catch (MongoException ex) {
            // Not the view's fault (unreachable server, stepdown, no majority): it runs again.
            log.warn("View {} of partition {} could not run: {}; it runs again in {}", key.id(), key.partition(),
                    ex.getMessage(), Durations.text(options.rewatch()));
            return runAgain(view, dirty, retries, ex.getMessage());
        }
        catch (RuntimeException ex) {
            if (stopping.getAsBoolean()) {
                log.info("View {} of partition {} did not finish as the engine stops ({}); it runs at the next start",
                        key.id(), key.partition(), ex.toString());
                return runAgain(view, dirty, retries, ex.toString());
            }
            fault = ex;
            String error = ex.getClass().getSimpleName() + ": " + ex.getMessage();
            report = new PassReport(key, WriteMode.NONE, PassOutcome.ERRORED, 0, 0, Duration.ZERO, error);
        }
        return recordOutcome(view, report, fault, note, dirty, retries);
    }

    /**
     * Records what a run of a view did — in the registry, its status, the listener — and marks its
     * target dirty when its rows changed; a view that gave way runs again. The one ending of every
     * run, alone or in a batch.
     * @param fault what threw, when the run failed with an error of the engine's own code
     */
    private PassReport recordOutcome(ViewDefinition view, PassReport report, @Nullable RuntimeException fault,
            PassStatus note, DirtySources dirty, DirtySources retries) {
        ViewKey key = view.key();
        registry.recordPass(key, report, clock.now());
        switch (report.outcome()) {
            case CHANGED, UNCHANGED -> {
                registry.setState(key, ViewState.OK, null);
                if (!note.landed()) {
                    // The flip carried no status (a writer that does not take the note): write it now
                    writeStatus(view, ViewState.OK, null, covered(view, dirty, retries));
                }
                if (report.outcome() == PassOutcome.CHANGED) {
                    dirty.addAll(view.targetCollection());
                }
                if (report.outcome() == PassOutcome.CHANGED) {
                    // The versions it superseded go once the grace of the generation before has passed
                    sweeps.after(options.generationGrace(), view);
                }
            }
            case ERRORED -> {
                String error = report.error() == null ? "the view failed" : report.error();
                if (fault != null) {
                    // Once, with the trace: what threw is a bug to find, not a state of the deployment.
                    log.error("View {} of partition {} errored: {}", key.id(), key.partition(), error, fault);
                }
                else {
                    log.error("View {} of partition {} errored: {}", key.id(), key.partition(), error);
                }
                registry.setState(key, ViewState.ERRORED, error);
                writeStatus(view, ViewState.ERRORED, error);
                listener.onViewErrored(key, error);
            }
            case SUPERSEDED -> {
                log.info("View {} of partition {} gave way ({}); it runs again in {}", key.id(), key.partition(),
                        report.error(), Durations.text(options.rewatch()));
                retryLater(view, dirty, retries);
            }
        }
        boolean landed = (report.outcome() == PassOutcome.CHANGED || report.outcome() == PassOutcome.UNCHANGED)
                && note.landed();
        if ((!landed && (report.outcome() == PassOutcome.CHANGED || report.outcome() == PassOutcome.SUPERSEDED))
                || registry.generation(key) == null) {
            // Only a write (ours, or the one we gave way to) moves the generation: spare the read otherwise. A flip
            // that carried the pass's status reaches the registry on the views stream, as every instance's does.
            refreshGeneration(view);
        }
        listener.onPassFinished(report);
        return report;
    }

    /** A view that could not run for a reason outside it: it runs again, and the pass says it gave way. */
    private PassReport runAgain(ViewDefinition view, DirtySources dirty, DirtySources retries, @Nullable String why) {
        retryLater(view, dirty, retries);
        PassReport report = new PassReport(view.key(), WriteMode.NONE, PassOutcome.SUPERSEDED, 0, 0, Duration.ZERO, why);
        listener.onPassFinished(report);
        return report;
    }

    /**
     * The key scope of the view's pass, from the keys its marks name; null for a whole pass. A
     * failure to plan (a key query that fails, say) makes the pass whole.
     */
    private PassPlanner.Plan plan(ViewRunner current, ViewDefinition view, DirtySources dirty) {
        if (registry.state(view.key()) == ViewState.ERRORED) {
            // Only a whole pass tells whether what errored it (a row without _id, maxRows) still holds
            return new PassPlanner.Plan(null, "the view is errored: a whole pass tells whether it still is");
        }
        try {
            PassPlanner.Plan plan = PassPlanner.plan(registry.shape(view.key()),
                    dirty.keysOf(view.key().id(), view.collections()),
                    (filter, projection, taker) -> current.find(view, filter, projection, taker));
            if (plan.scope() == null) {
                log.debug("View {} of partition {} runs whole: {}", view.key().id(), view.partition(), plan.wholeBecause());
            }
            return plan;
        }
        catch (RuntimeException ex) {
            log.debug("View {} of partition {} runs whole: its keys could not be planned: {}", view.key().id(),
                    view.partition(), ex.toString());
            return new PassPlanner.Plan(null, "its keys could not be planned: " + ex);
        }
    }

    private void refreshGeneration(ViewDefinition view) {
        try {
            BsonDocument stored = status.readStored(view);
            if (stored != null) {
                registry.noteStatus(view.key(), stored);
            }
        }
        catch (MongoException ex) {
            log.debug("The generation of view {} was not read back: {}", view.key(), ex.getMessage());
        }
    }

    /**
     * The view runs again: every source it reads stays marked for it, so every checkpoint keeps it
     * pending, with the cluster times of its marks, so that its next run covers them.
     */
    private static void retryLater(ViewDefinition view, DirtySources dirty, DirtySources retries) {
        for (String source : view.collections()) {
            retries.add(source, List.of(view.key().id()));
            retries.noteClusterTime(source, dirty.clusterTimeOf(source));
        }
    }

    /**
     * What a view that just ran ok has applied: per collection of its lineage marked in this pass,
     * the time of the newest change marked. Only when every view upstream of it is ok and none of
     * them was handed back in this pass, as its rows are then built on theirs; else nothing (a wait
     * for freshness waits on).
     */
    private Map<String, BsonTimestamp> covered(ViewDefinition view, DirtySources dirty, DirtySources retries) {
        if (dirty.clusterTime() == null) {
            return Map.of();
        }
        Lineage lineage = Lineage.of(view, registry.views(view.partition()));
        for (ViewDefinition upstream : lineage.upstream()) {
            if (registry.state(upstream.key()) != ViewState.OK
                    || retries.affects(upstream.key().id(), upstream.collections())) {
                return Map.of();
            }
        }
        Map<String, BsonTimestamp> covered = new HashMap<>();
        for (String collection : lineage.collections()) {
            BsonTimestamp time = dirty.clusterTimeOf(collection);
            if (time != null) {
                covered.put(collection, time);
            }
        }
        return covered;
    }

    private void writeStatus(ViewDefinition view, ViewState state, @Nullable String error) {
        writeStatus(view, state, error, Map.of());
    }

    private void writeStatus(ViewDefinition view, ViewState state, @Nullable String error,
            Map<String, BsonTimestamp> covered) {
        try {
            status.write(view, state, error, clock.now(), covered,
                    state == ViewState.OK ? targetsRead(view) : List.of());
        }
        catch (MongoException ex) {
            log.warn("The status of view {} was not written: {}", view.key(), ex.getMessage());
        }
    }

    /**
     * Whether the view reads a collection that a view document of its partition (valid or not, as
     * the registry knows them) names as its target: only then does the guard need the current
     * generations of those targets. The registry is the one the pass took its views from, so this is
     * the same picture of the partition's definitions as the rest of the pass.
     */
    private boolean readsViewTargets(ViewDefinition view) {
        for (ViewDefinition other : registry.views(view.partition())) {
            if (view.collections().contains(other.targetCollection())) {
                return true;
            }
        }
        for (String target : registry.targetsOfInvalid(view.partition())) {
            if (view.collections().contains(target)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The targets of the other views of its partition that a view reads: recorded with an ok run, so
     * a start finds the views whose upstream went while no engine heard it.
     */
    private List<String> targetsRead(ViewDefinition view) {
        Set<String> reads = new java.util.TreeSet<>();
        for (ViewDefinition other : registry.views(view.partition())) {
            if (!other.key().equals(view.key()) && view.collections().contains(other.targetCollection())) {
                reads.add(other.targetCollection());
            }
        }
        return List.copyOf(reads);
    }
}
