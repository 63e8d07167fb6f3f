package dev.materializer.core.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.EngineClock;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.write.ViewRunner;

/**
 * The sweeps after each flip's grace: once {@code generation-grace} has passed after a flip, the
 * versions it superseded go. Sweeps that come due together — the flips of a burst across tenants —
 * run as one: one read of their statuses and one delete per target ({@link ViewRunner#sweep(List)}),
 * not two commands per view.
 *
 * <p>What it guarantees: every view that flipped is swept at the latest when the first sweep task
 * after its grace runs; a sweep never removes a version a reader of a generation inside its grace
 * sees (it reads the statuses when it runs, and a stale status only names older generations, so it
 * removes less). Sweeps need no lane of their partition for that reason: they run in a lane of their
 * own, which drains and closes with the others.
 *
 * <p>Threads: {@link #after} from the pass threads; the timers fire on the clock's thread and only
 * note the view; the sweep runs on a pass thread. The views due are guarded by {@code this}.
 */
final class GraceSweeps {

    /** The lane of the sweeps: no partition is named so (a partition that were would only wait for them). */
    static final String LANE = "\u0000materializer-grace-sweeps";

    private final EngineClock clock;

    private final PartitionLanes lanes;

    private final ViewRegistry registry;

    private final ViewRunner runner;

    private final BooleanSupplier running;

    /** Views whose grace has not passed yet, by the moment it does: one timer per moment. */
    private final Map<Instant, Set<ViewDefinition>> timed = new HashMap<>();

    /** Views whose grace has passed, waiting for the sweep task queued for them. */
    private final Set<ViewDefinition> due = new LinkedHashSet<>();

    /** Whether a sweep task is queued and has not taken the views due yet. */
    private boolean queued;

    GraceSweeps(EngineClock clock, PartitionLanes lanes, ViewRegistry registry, ViewRunner runner,
            BooleanSupplier running) {
        this.clock = clock;
        this.lanes = lanes;
        this.registry = registry;
        this.runner = runner;
        this.running = running;
    }

    /** Sweeps the view once the delay has passed. */
    void after(Duration delay, ViewDefinition view) {
        Instant at = clock.now().plus(delay);
        synchronized (this) {
            Set<ViewDefinition> waiting = timed.get(at);
            if (waiting != null) {
                // Flipped at the same moment as others: one timer serves them all
                waiting.add(view);
                return;
            }
            waiting = new LinkedHashSet<>();
            waiting.add(view);
            timed.put(at, waiting);
        }
        clock.schedule(delay, () -> due(at));
    }

    private void due(Instant at) {
        boolean submit;
        synchronized (this) {
            Set<ViewDefinition> views = timed.remove(at);
            if (views != null) {
                due.addAll(views);
            }
            submit = !queued && !due.isEmpty();
            if (submit) {
                queued = true;
            }
        }
        if (submit) {
            lanes.submit(LANE, () -> {
                sweepDue();
                return null;
            });
        }
    }

    private void sweepDue() {
        List<ViewDefinition> views;
        synchronized (this) {
            views = new ArrayList<>(due);
            due.clear();
            queued = false;
        }
        if (!running.getAsBoolean()) {
            return;
        }
        // A view replaced or gone since its flip has its own sweeps, or none to make
        views.removeIf(view -> registry.find(view.partition(), view.key().id()) != view);
        if (!views.isEmpty()) {
            runner.sweep(views);
        }
    }
}
