package dev.materializer.core.engine;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.VerifyReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import com.mongodb.MongoException;
import dev.materializer.core.freshness.CaughtUpSince;
import dev.materializer.core.freshness.FreshnessProbe;
import dev.materializer.core.freshness.FreshnessWaits;
import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.reconcile.Reconciler;
import dev.materializer.core.EngineClock;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.ViewRunner;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconcile run of one view, in its partition's lane: compare the stored rows with a fresh run
 * of the pipeline (writing nothing), and when they differ, run the view as a pass would. A
 * difference is drift — rows the engine should have written and had not, or rows someone else
 * wrote — only when it is judged as a wait for freshness judges a view fresh
 * ({@link CaughtUpSince}): after the check began, the streams of every collection of the view's
 * lineage (and the views stream) have handed over everything committed before it, and then nothing
 * of those collections is pending in the partition. Drift is counted, logged, and written in the
 * status. A difference the streams had not handed over yet (lag), or that work pending explains,
 * is that work, not drift: it heals all the same, and counts as nothing.
 *
 * <p>Threads: {@link #reconcile} is called on the clock's thread and only queues; the run itself is
 * on a pass thread, serial with the partition's other work, so no pass of the partition runs while
 * it judges.
 */
final class Reconciliation implements Reconciler.Views {

    private static final Logger log = LoggerFactory.getLogger(Reconciliation.class);

    /**
     * How long a run that found a difference waits for the streams to hand over what was committed
     * before its check: an idle stream does within two polls (a second), a busy one once it has
     * read that far. Past it the difference is not judged (not drift): the streams lag.
     */
    static final Duration STREAMS_WAIT = Duration.ofSeconds(5);

    /** What a difference was found to be. */
    enum Judged {

        /** Streams caught up, nothing pending: the engine lost it, or someone wrote the target. */
        DRIFT("every stream caught up and nothing pending"),

        /** Marks, a definition change or a catch-up of the lineage were pending: that work, not drift. */
        PENDING("work pending for its sources"),

        /** A stream had not handed over everything before the check within {@link #STREAMS_WAIT}: lag, not judged. */
        STREAMS_BEHIND("streams that had not handed over everything committed before the check"),

        /** The partition moved to another instance meanwhile: not this instance's to judge. */
        NOT_OWNED("its partition moving to another instance");

        private final String with;

        Judged(String with) {
            this.with = with;
        }
    }

    private final ViewRegistry registry;

    private final PassExecution passes;

    private final PassScheduler scheduler;

    private final PartitionLanes lanes;

    private final StatusStore status;

    private final EngineClock clock;

    private final MaterializerListener listener;

    private final Predicate<String> owns;

    private final ViewRunner runner;

    private final FreshnessProbe probe;

    private final Supplier<@Nullable BsonTimestamp> clusterTime;

    /**
     * Creates the reconciler's work over the engine's parts.
     * @param probe the engine's bookkeeping, read as a wait for freshness reads it
     * @param clusterTime the primary's cluster time now, or null where there is none
     */
    Reconciliation(ViewRegistry registry, PassExecution passes, PassScheduler scheduler, PartitionLanes lanes,
            StatusStore status, EngineClock clock, MaterializerListener listener, Predicate<String> owns,
            ViewRunner runner, FreshnessProbe probe, Supplier<@Nullable BsonTimestamp> clusterTime) {
        this.probe = probe;
        this.clusterTime = clusterTime;
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
        if (view == null || registry.isBlocked(key) || !owns.test(key.partition())
                || !scheduler.intake()) {
            return;
        }
        // M: what was committed before it and is not applied yet explains a difference; the rest is drift.
        long began = System.nanoTime();
        VerifyReport check;
        try {
            check = runner.verify(view, true);
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
        Judged judged = null;
        if (!check.inSync()) {
            // At or after every write acknowledged before M: a busy stream that handed over a later event heard M.
            BsonTimestamp readTime = clusterTime.get();
            PassExecution.Refreshed healed = passes.refresh(view);
            judged = judge(key, began, readTime);
            // After the judgement: what the heal itself could not apply is no reason to call the difference work.
            scheduler.retry(key.partition(), healed.retries());
        }
        boolean drift = judged == Judged.DRIFT;
        Instant now = clock.now();
        registry.recordReconcile(key, now, drift ? check.differences() : 0);
        if (drift) {
            log.warn("Drift: view {} of partition {} differed from its pipeline with no work pending ({} missing, "
                    + "{} changed, {} extra row(s)); the reconciler rewrote it", key.id(), key.partition(),
                    check.missing(), check.changed(), check.extra());
        }
        else if (judged != null) {
            log.debug("View {} of partition {} differed from its pipeline ({} row(s)) with {}: rewritten, not drift",
                    key.id(), key.partition(), check.differences(), judged.with);
        }
        try {
            status.writeReconciled(view, now, drift ? check : null);
        }
        catch (MongoException ex) {
            log.debug("The reconcile of view {} was not written in its status: {}", key, ex.getMessage());
        }
        listener.onReconciled(key, check, drift);
    }

    /**
     * Judges a difference found by a check that began at {@code began}: drift only once the
     * partition caught up with that moment, within {@link #STREAMS_WAIT}. Runs in the partition's
     * lane, so no pass takes marks while it looks: marks of the lineage pending now are what the
     * difference was.
     */
    private Judged judge(ViewKey key, long began, @Nullable BsonTimestamp readTime) {
        CaughtUpSince since = new CaughtUpSince(probe, key.partition(), began, readTime);
        long deadline = System.nanoTime() + STREAMS_WAIT.toNanos();
        while (true) {
            Set<String> lineage = probe.dependsOn(key.partition(), key.id());
            if (lineage == null) {
                // Removed or changed meanwhile: its definition change is the work.
                return Judged.PENDING;
            }
            switch (since.look(lineage)) {
                case CAUGHT_UP -> {
                    return Judged.DRIFT;
                }
                case APPLYING -> {
                    return Judged.PENDING;
                }
                case NOT_OWNED -> {
                    return Judged.NOT_OWNED;
                }
                case HEARING -> {
                    if (System.nanoTime() - deadline >= 0) {
                        return Judged.STREAMS_BEHIND;
                    }
                    try {
                        TimeUnit.NANOSECONDS.sleep(FreshnessWaits.LOOK.toNanos());
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return Judged.STREAMS_BEHIND;
                    }
                }
            }
        }
    }
}
