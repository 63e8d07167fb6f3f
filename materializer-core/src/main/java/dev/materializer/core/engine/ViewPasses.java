package dev.materializer.core.engine;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BinaryOperator;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.EngineClock;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.core.WriteMode;
import dev.materializer.core.graph.DependencyOrder;
import dev.materializer.core.graph.Lineage;
import dev.materializer.core.incremental.PassPlanner;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.time.Durations;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.write.PassStatus;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.ViewRunner;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run of one view inside a pass of its partition: its key scope planned from its marks, the run,
 * and its outcome recorded — in the registry, its status, the listener — its target marked dirty when
 * its rows changed, or the view handed back to run again. The one ending of every run, alone or in a
 * batch ({@link BatchedPasses}), and the dependency order of the views of a partition.
 *
 * <p>What it guarantees: every view it is asked to run either ends in a recorded outcome (its status
 * {@code ok} or {@code errored} with the message) or is handed back as a retry — whatever it throws.
 * Failures are told apart by the engine's own types: a failure of the deployment (a
 * {@link MongoException}) runs again; anything else is the view's error,
 * so a bug never retries without end.
 *
 * <p>Threads: the lanes' pool threads; shared state lives in the registry (synchronized) and in
 * MongoDB; the writer is built for the deployment before this object, and never changes.
 */
final class ViewPasses {

    private static final Logger log = LoggerFactory.getLogger(ViewPasses.class);

    private final ViewRegistry registry;

    private final ViewRunner runner;

    private final StatusStore status;

    private final EngineClock clock;

    private final MaterializerListener listener;

    private final MaterializerOptions options;

    private final Sweeps sweeps;

    /** Whether the engine is stopping or stopped: a failure then may be the close itself. */
    private final BooleanSupplier stopping;

    /** Schedules the removal of a view's old generations once its grace time has passed. */
    interface Sweeps {

        void after(Duration delay, ViewDefinition view);
    }

    ViewPasses(ViewRegistry registry, ViewRunner runner, StatusStore status, EngineClock clock,
            MaterializerListener listener, MaterializerOptions options, Sweeps sweeps, BooleanSupplier stopping) {
        this.registry = registry;
        this.runner = runner;
        this.status = status;
        this.clock = clock;
        this.listener = listener;
        this.options = options;
        this.sweeps = sweeps;
        this.stopping = stopping;
    }

    /** The writer of the deployment. */
    ViewRunner runner() {
        return runner;
    }

    void runInOrder(String partition, Predicate<ViewDefinition> shouldRun, DirtySources dirty,
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
     * {@link MongoException}: {@link ViewRunner#run} throws one only then) runs again; anything else thrown is a fault of this view alone — a bug of the engine or
     * of its options (a target id strategy that throws) — and makes it {@code errored}, so it never
     * retries without end. Only while the engine stops is a failure not judged (a client closed under
     * a running pass throws {@link IllegalStateException}): the view runs again at the next start.
     */
    PassReport runOne(ViewDefinition view, DirtySources dirty, DirtySources retries) {
        ViewKey key = view.key();
        listener.onPassStarted(key);
        ViewRunner current = runner;
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
    PassReport recordOutcome(ViewDefinition view, PassReport report, @Nullable RuntimeException fault,
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
    PassReport runAgain(ViewDefinition view, DirtySources dirty, DirtySources retries, @Nullable String why) {
        retryLater(view, dirty, retries);
        PassReport report = new PassReport(view.key(), WriteMode.NONE, PassOutcome.SUPERSEDED, 0, 0, Duration.ZERO, why);
        listener.onPassFinished(report);
        return report;
    }

    /**
     * The key scope of the view's pass, from the keys its marks name; null for a whole pass. A
     * failure to plan (a key query that fails, say) makes the pass whole.
     */
    PassPlanner.Plan plan(ViewRunner current, ViewDefinition view, DirtySources dirty) {
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
    static void retryLater(ViewDefinition view, DirtySources dirty, DirtySources retries) {
        for (String source : view.collections()) {
            retries.add(source, List.of(view.key().id()));
            retries.noteClusterTime(source, dirty.clusterTimeOf(source));
        }
    }

    /**
     * What a view that just ran ok has applied: per collection of its lineage marked in this pass,
     * the time of the newest change marked; and, for a view a take-over ran by keys, per collection it
     * reads, the newest time of the changes heard of it then ({@link DirtySources#takenOverUpTo}). Only
     * when every view upstream of it is ok and none of them was handed back in this pass, as its rows
     * are then built on theirs; else nothing (a wait for freshness waits on).
     */
    Map<String, BsonTimestamp> covered(ViewDefinition view, DirtySources dirty, DirtySources retries) {
        Map<String, BsonTimestamp> takenOver = dirty.takenOverUpTo(view.key().id());
        if (dirty.clusterTime() == null && takenOver.isEmpty()) {
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
        takenOver.forEach((collection, time) -> covered.merge(collection, time,
                BinaryOperator.maxBy(Comparator.naturalOrder())));
        return covered;
    }

    void writeStatus(ViewDefinition view, ViewState state, @Nullable String error) {
        writeStatus(view, state, error, Map.of());
    }

    void writeStatus(ViewDefinition view, ViewState state, @Nullable String error,
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
    boolean readsViewTargets(ViewDefinition view) {
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
    List<String> targetsRead(ViewDefinition view) {
        Set<String> reads = new TreeSet<>();
        for (ViewDefinition other : registry.views(view.partition())) {
            if (!other.key().equals(view.key()) && view.collections().contains(other.targetCollection())) {
                reads.add(other.targetCollection());
            }
        }
        return List.copyOf(reads);
    }
}
