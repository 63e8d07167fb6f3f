package dev.materializer.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;

import com.mongodb.MongoException;
import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.reconcile.Reconciler;
import dev.materializer.core.time.EngineClock;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewKey;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.ViewRunner;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconcile run of one view, in its partition's lane: compare the stored rows with a fresh run
 * of the pipeline (writing nothing), and when they differ, run the view as a pass would. A
 * difference found while the partition had no work pending is drift — rows the engine should have
 * written and had not, or rows someone else wrote: it is counted, logged, and written in the status.
 * A difference while work is pending is that work, not drift.
 *
 * <p>Threads: {@link #reconcile} is called on the clock's thread and only queues; the run itself is
 * on a pass thread, serial with the partition's other work.
 */
final class Reconciliation implements Reconciler.Views {

    private static final Logger log = LoggerFactory.getLogger(Reconciliation.class);

    private final ViewRegistry registry;

    private final PassExecution passes;

    private final PassScheduler scheduler;

    private final PartitionLanes lanes;

    private final StatusStore status;

    private final EngineClock clock;

    private final MaterializerListener listener;

    private final Predicate<String> owns;

    private final Supplier<@Nullable ViewRunner> runner;

    Reconciliation(ViewRegistry registry, PassExecution passes, PassScheduler scheduler, PartitionLanes lanes,
            StatusStore status, EngineClock clock, MaterializerListener listener, Predicate<String> owns,
            Supplier<@Nullable ViewRunner> runner) {
        this.registry = registry;
        this.passes = passes;
        this.scheduler = scheduler;
        this.lanes = lanes;
        this.status = status;
        this.clock = clock;
        this.listener = listener;
        this.owns = owns;
        this.runner = runner;
    }

    @Override
    public List<ViewKey> owned() {
        List<ViewKey> owned = new ArrayList<>();
        for (String partition : registry.partitions()) {
            if (owns.test(partition)) {
                registry.views(partition).forEach(view -> owned.add(view.key()));
            }
        }
        owned.sort(Comparator.comparing(ViewKey::partition).thenComparing(ViewKey::id));
        return owned;
    }

    @Override
    public boolean busy(String partition) {
        return scheduler.isPending(partition);
    }

    @Override
    public CompletableFuture<?> reconcile(ViewKey key) {
        return lanes.submit(key.partition(), () -> {
            run(key);
            return null;
        });
    }

    private void run(ViewKey key) {
        ViewDefinition view = registry.find(key.partition(), key.id());
        ViewRunner current = runner.get();
        if (view == null || current == null || registry.isBlocked(key) || !owns.test(key.partition())
                || !scheduler.intake()) {
            return;
        }
        VerifyReport check;
        try {
            check = current.verify(view, true);
        }
        catch (MongoException ex) {
            // A failure of the deployment (the verify makes any other failure of MongoDB the report's error)
            log.debug("View {} was not reconciled: {}", key, ex.getMessage());
            return;
        }
        catch (RuntimeException ex) {
            // A bug of the comparison: said once, loud, rather than lost in a future nobody reads. The view's
            // own passes go on, and the next round compares again.
            if (scheduler.intake()) {
                log.error("The reconcile check of view {} failed", key, ex);
            }
            return;
        }
        if (check.error() != null) {
            // The view's own failure: its passes say so in its status.
            return;
        }
        boolean drift = !check.inSync() && !scheduler.isPending(key.partition());
        if (!check.inSync()) {
            PassExecution.Refreshed healed = passes.refresh(view);
            scheduler.retry(key.partition(), healed.retries());
        }
        Instant now = clock.now();
        registry.recordReconcile(key, now, drift ? check.differences() : 0);
        if (drift) {
            log.warn("Drift: view {} of partition {} differed from its pipeline with no work pending ({} missing, "
                    + "{} changed, {} extra row(s)); the reconciler rewrote it", key.id(), key.partition(),
                    check.missing(), check.changed(), check.extra());
        }
        try {
            status.writeReconciled(view, now, drift ? check : null);
        }
        catch (MongoException ex) {
            log.debug("The reconcile of view {} was not written in its status: {}", key, ex.getMessage());
        }
        listener.onReconciled(key, check, drift);
    }
}
