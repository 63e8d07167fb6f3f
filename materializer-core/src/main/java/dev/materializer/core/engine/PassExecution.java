package dev.materializer.core.engine;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassReport;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.graph.DependencyOrder;
import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.EngineClock;
import dev.materializer.core.time.Durations;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.write.LostStatus;
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
 * hold back, whatever another instance decided when it did not own the partition. Each view's run
 * and its recorded outcome are {@link ViewPasses}'; passes of several partitions run together are
 * {@link BatchedPasses}'.
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

    private final ViewPasses passes;

    private final BatchedPasses batches;

    private final StatusStore status;

    private final EngineClock clock;

    private final MaterializerListener listener;

    private final MaterializerOptions options;

    private final Predicate<String> owns;

    private final LostStatus lostStatus;

    private final TargetClaims claims;

    private final HeardChanges heard;

    PassExecution(ViewRegistry registry, ViewRunner runner, StatusStore status, LostStatus lostStatus, EngineClock clock,
            MaterializerListener listener, MaterializerOptions options, Predicate<String> owns,
            ViewPasses.Sweeps sweeps, BooleanSupplier stopping, HeardChanges heard) {
        this.heard = heard;
        this.owns = owns;
        this.lostStatus = lostStatus;
        this.registry = registry;
        this.status = status;
        this.clock = clock;
        this.listener = listener;
        this.options = options;
        this.claims = new TargetClaims(registry, status);
        this.passes = new ViewPasses(registry, runner, status, clock, listener, options, sweeps, stopping);
        this.batches = new BatchedPasses(passes, new BatchSelection(registry, claims, passes::readsViewTargets), owns,
                clock, listener, options);
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
     * Runs the pass, and with it the waiting passes of other partitions when a batch can run them
     * together ({@link BatchedPasses}); else the pass alone.
     */
    @Override
    public Map<String, PassScheduler.Ran> runWith(String partition, DirtySources dirty,
            PassScheduler.Companions companions) {
        Map<String, DirtySources> batch = batches.take(partition, dirty, companions);
        return batch.isEmpty() ? Map.of(partition, run(partition, dirty)) : batches.run(batch);
    }

    private DirtySources runOwned(String partition, DirtySources dirty) {
        DirtySources retries = new DirtySources();
        if (!readsAt(partition, dirty.clusterTime())) {
            return dirty;
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
        DirtySources marks = dirty;
        if (dirty.handover() || dirty.hasReplayed()) {
            Map<String, BsonDocument> stored;
            try {
                stored = status.storedStatuses(partition);
            }
            catch (MongoException ex) {
                log.warn("Partition {}: the statuses of its views could not be read for its {}; it runs again in {}",
                        partition, dirty.handover() ? "handover" : "replayed changes", Durations.text(options.rewatch()));
                return dirty;
            }
            if (dirty.handover()) {
                marks = handedOver(partition, views, marks, stored);
                // What the take-over's views will say they covered is in what they read
                if (!readsAt(partition, marks.newestTakenOver())) {
                    return dirty;
                }
            }
            marks = withoutReplayedApplied(partition, views, marks, stored);
        }
        DirtySources toRun = marks;
        passes.runInOrder(partition,
                view -> run.contains(view.key().id()) || toRun.affects(view.key().id(), view.collections()), toRun,
                retries);
        return retries;
    }

    /**
     * Returns once the server reads at or after a time (a pass woken by an event then reads a state
     * that has it, even right after a failover); false, logged, when it does not yet: the pass runs
     * again later rather than read too early.
     */
    private boolean readsAt(String partition, @Nullable BsonTimestamp time) {
        if (time == null) {
            return true;
        }
        try {
            passes.runner().awaitClusterTime(time);
            return true;
        }
        catch (MongoException ex) {
            log.warn("Partition {} could not read at the time of its changes ({}); it runs again in {}", partition,
                    ex.getMessage(), Durations.text(options.rewatch()));
            return false;
        }
    }

    /**
     * The marks of a pass of a partition just taken over: each view runs for what its previous owner
     * did not apply of what this instance heard ({@link HeardChanges#toRun}) — nothing when its
     * stored status covers every change heard of it, the keys of the changes after what it covers when
     * they were all kept, else the whole view — and for the marks it has besides (changes heard since
     * the handover). A view the pass lets go is {@code ok} in the registry, as its status says. A view
     * that runs carries the newest time of the changes heard of it, which its status then covers.
     * @param stored the stored statuses of the partition's views, by view id
     * @return the marks
     */
    private DirtySources handedOver(String partition, List<ViewDefinition> views, DirtySources dirty,
            Map<String, BsonDocument> stored) {
        Map<String, List<String>> whole = new HashMap<>();
        Map<String, Map<String, AffectedKeys>> keyed = new HashMap<>();
        Map<String, Map<String, BsonTimestamp>> heardUpTo = new HashMap<>();
        for (ViewDefinition view : views) {
            BsonDocument viewStatus = stored.get(view.key().id());
            HeardChanges.HandoverRun run = heard.toRun(view, viewStatus, passes.targetsRead(view));
            if (run.whole()) {
                whole.put(view.key().id(), view.collections());
                heardUpTo.put(view.key().id(), run.heardUpTo());
            }
            else if (run.isNothing()) {
                letGo(view, viewStatus);
            }
            else {
                keyed.put(view.key().id(), run.keys());
                heardUpTo.put(view.key().id(), run.heardUpTo());
            }
        }
        log.debug("Partition {} taken over: {} view(s) run whole, {} for the keys changed since their previous owner's"
                + " pass, {} left as their previous owner applied them", partition, whole.size(), keyed.size(),
                views.size() - whole.size() - keyed.size());
        return dirty.withoutHandover(whole, keyed, heardUpTo);
    }

    /**
     * The marks of a pass without the views marked only by events a stream replayed after it resumed
     * from a checkpoint whose stored status covers each of them ({@link StoredCoverage}): another
     * instance applied them while this one was away (a restart under the same id, or a new one, after
     * others took the partition over). Those marks are applied, so no checkpoint that counts them done
     * breaks the invariant. A view with any other mark runs as marked.
     * @param stored the stored statuses of the partition's views, by view id
     */
    private DirtySources withoutReplayedApplied(String partition, List<ViewDefinition> views, DirtySources marks,
            Map<String, BsonDocument> stored) {
        Set<String> applied = new HashSet<>();
        for (ViewDefinition view : views) {
            Map<String, BsonTimestamp> replayed = marks.replayedOnly(view.key().id(), view.collections());
            BsonDocument viewStatus = stored.get(view.key().id());
            if (replayed != null && StoredCoverage.covers(view, viewStatus, passes.targetsRead(view), replayed)) {
                applied.add(view.key().id());
                letGo(view, viewStatus);
            }
        }
        if (applied.isEmpty()) {
            return marks;
        }
        log.debug("Partition {}: {} view(s) left as the changes replayed for them were applied already", partition,
                applied.size());
        return marks.without(applied);
    }

    /** A view a pass lets go as its stored status shows its marks applied: {@code ok}, as the status says. */
    private void letGo(ViewDefinition view, BsonDocument viewStatus) {
        registry.noteStatus(view.key(), viewStatus);
        if (!registry.isBlocked(view.key())) {
            registry.setState(view.key(), ViewState.OK, null);
        }
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
        passes.runInOrder(partition, view -> !held.contains(view.key()) && (freed.contains(view.key().id())
                || mustRun.test(view) || dirty.affects(view.key().id(), view.collections())), dirty, retries);
        held.forEach(key -> {
            ViewDefinition view = registry.find(partition, key.id());
            if (view != null) {
                ViewPasses.retryLater(view, dirty, retries);
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
                        passes.writeStatus(view, ViewState.ERRORED, conflict);
                        listener.onViewErrored(key, conflict);
                    }
                }
            }
            else if (order.cyclic().contains(key)) {
                if (now != ViewState.CYCLE) {
                    registry.setState(key, ViewState.CYCLE, null);
                    if (owned) {
                        log.warn("View {} is in a dependency cycle in partition {}: it does not run", key.id(), partition);
                        passes.writeStatus(view, ViewState.CYCLE, null);
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
        PassReport report = passes.runOne(view, dirty, retries);
        if (!dirty.isEmpty()) {
            passes.runInOrder(view.partition(), other -> !other.key().equals(view.key())
                    && dirty.affects(other.key().id(), other.collections()), dirty, retries);
        }
        return new Refreshed(report, retries);
    }

}
