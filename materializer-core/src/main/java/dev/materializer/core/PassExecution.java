package dev.materializer.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.graph.DependencyOrder;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.time.EngineClock;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewKey;
import dev.materializer.core.view.ViewState;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.ViewRunner;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of one partition: its passes (the dirty views in dependency order, a changed view
 * dirtying its target so the views after it run in the same pass), its rebalances (views moving
 * into and out of cycles), and one-view refreshes. Each method runs in the partition's lane, so the
 * work of a partition is serial.
 *
 * <p>Passes and rebalances run only in partitions this instance owns; a refresh runs wherever it is
 * asked for.
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

    private @Nullable PassScheduler scheduler;

    private @Nullable Sweeps sweeps;

    private final Predicate<String> owns;

    PassExecution(ViewRegistry registry, StatusStore status, EngineClock clock, MaterializerListener listener,
            MaterializerOptions options, Predicate<String> owns) {
        this.owns = owns;
        this.registry = registry;
        this.status = status;
        this.clock = clock;
        this.listener = listener;
        this.options = options;
    }

    /** Late wiring: the scheduler and the sweeps need this object to exist first. */
    void wire(PassScheduler scheduler, Sweeps sweeps) {
        this.scheduler = scheduler;
        this.sweeps = sweeps;
    }

    /** The writer, chosen once the deployment's capabilities are known. */
    void useRunner(ViewRunner runner) {
        this.runner = runner;
    }

    /** Schedules the removal of a view's old generations once its grace time has passed. */
    interface Sweeps {

        void after(Duration delay, ViewDefinition view);
    }

    @Override
    public void runPass(String partition, DirtySources dirty) {
        if (!owns.test(partition)) {
            // Another instance owns it now; the change is its to run.
            return;
        }
        runInOrder(partition, view -> dirty.affects(view.key().id(), view.collections()), dirty);
    }

    /**
     * Moves the views of a partition into and out of cycles, and runs the views that need it: the
     * ones the predicate names (new, changed, never run, errored) and the ones leaving a cycle,
     * then the views downstream of any that changed. In a partition another instance owns, only
     * the registry follows (cycles in and out); the owner runs the views and writes their status.
     */
    void rebalance(String partition, Predicate<ViewDefinition> mustRun) {
        boolean owned = owns.test(partition);
        DependencyOrder order = DependencyOrder.of(registry.views(partition));
        for (ViewKey key : order.cyclic()) {
            if (!registry.isCycle(key)) {
                registry.setState(key, "cycle", null);
                ViewDefinition view = registry.find(key.partition(), key.id());
                if (view != null && owned) {
                    log.warn("View {} is in a dependency cycle in partition {}: it does not run", key.id(), partition);
                    writeStatus(view, ViewState.CYCLE, null);
                }
            }
        }
        Set<String> leavingCycle = new HashSet<>();
        for (ViewDefinition view : order.sorted()) {
            if (registry.isCycle(view.key())) {
                leavingCycle.add(view.key().id());
                registry.setState(view.key(), "pending", null);
            }
        }
        if (!owned) {
            return;
        }
        DirtySources dirty = new DirtySources();
        runInOrder(partition, view -> leavingCycle.contains(view.key().id()) || mustRun.test(view)
                || dirty.affects(view.key().id(), view.collections()), dirty);
    }

    /**
     * Runs one view now, then the views downstream of it when its rows changed.
     * @return the report of the view itself
     */
    PassReport refresh(ViewDefinition view) {
        DirtySources dirty = new DirtySources();
        PassReport report = runOne(view, dirty);
        if (!dirty.isEmpty()) {
            runInOrder(view.partition(), other -> !other.key().equals(view.key())
                    && dirty.affects(other.key().id(), other.collections()), dirty);
        }
        return report;
    }

    private void runInOrder(String partition, Predicate<ViewDefinition> shouldRun, DirtySources dirty) {
        List<ViewDefinition> sorted = DependencyOrder.of(registry.views(partition)).sorted();
        for (ViewDefinition view : sorted) {
            // The registry may have dropped or replaced the view since the order was taken.
            if (registry.find(partition, view.key().id()) != view || registry.isCycle(view.key())) {
                continue;
            }
            if (shouldRun.test(view)) {
                runOne(view, dirty);
            }
        }
    }

    /** Runs a view, records and reports the outcome, and marks its target dirty when its rows changed. */
    private PassReport runOne(ViewDefinition view, DirtySources dirty) {
        ViewKey key = view.key();
        listener.onPassStarted(key);
        PassReport report;
        ViewRunner current = runner;
        try {
            if (current == null) {
                throw new IllegalStateException("the engine has not started");
            }
            report = current.run(view);
        }
        catch (MongoException | IllegalStateException ex) {
            // Not the view's fault (unreachable server, stepdown): try again after rewatch.
            log.warn("View {} of partition {} could not run: {}; it runs again later", key.id(), key.partition(),
                    ex.getMessage());
            retryLater(view);
            report = new PassReport(key, WriteMode.NONE, PassOutcome.SUPERSEDED, 0, 0, Duration.ZERO, ex.getMessage());
            listener.onPassFinished(report);
            return report;
        }
        registry.recordPass(key, report, clock.now());
        switch (report.outcome()) {
            case CHANGED, UNCHANGED -> {
                registry.setState(key, "ok", null);
                writeStatus(view, ViewState.OK, null);
                if (report.outcome() == PassOutcome.CHANGED) {
                    dirty.addAll(view.targetCollection());
                }
                if (report.mode() == WriteMode.GENERATION && report.outcome() == PassOutcome.CHANGED && sweeps != null) {
                    sweeps.after(options.generationGrace(), view);
                }
            }
            case ERRORED -> {
                String error = report.error() == null ? "the view failed" : report.error();
                log.error("View {} of partition {} errored: {}", key.id(), key.partition(), error);
                registry.setState(key, "errored", error);
                writeStatus(view, ViewState.ERRORED, error);
                listener.onViewErrored(key, error);
            }
            case SUPERSEDED -> {
                log.info("View {} of partition {} gave way ({}); it runs again later", key.id(), key.partition(),
                        report.error());
                retryLater(view);
            }
        }
        if (report.outcome() == PassOutcome.CHANGED || report.outcome() == PassOutcome.SUPERSEDED
                || registry.generation(key) == null) {
            // Only a write (ours, or the one we gave way to) moves the generation: spare the read otherwise.
            refreshGeneration(view);
        }
        listener.onPassFinished(report);
        return report;
    }

    private void refreshGeneration(ViewDefinition view) {
        try {
            registry.setGeneration(view.key(), status.read(view).generation());
        }
        catch (MongoException ex) {
            log.debug("The generation of view {} was not read back: {}", view.key(), ex.getMessage());
        }
    }

    private void retryLater(ViewDefinition view) {
        PassScheduler passes = scheduler;
        if (passes != null) {
            clock.schedule(options.rewatch(), () -> passes.markDirty(view.partition(), view.primarySource()));
        }
    }

    private void writeStatus(ViewDefinition view, ViewState state, @Nullable String error) {
        try {
            status.write(view, state, error, clock.now());
        }
        catch (MongoException ex) {
            log.warn("The status of view {} was not written: {}", view.key(), ex.getMessage());
        }
    }
}
