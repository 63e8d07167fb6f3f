package dev.materializer.core.engine;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.incremental.PassPlanner;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.EngineClock;
import dev.materializer.core.time.Durations;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.core.write.BatchMember;
import dev.materializer.core.write.BatchRun;
import dev.materializer.core.write.PassStatus;
import dev.materializer.core.write.ViewRunner;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes of several partitions run together: a pass whose partition has work a batch can run for
 * views of some definitions takes with it the waiting passes of other partitions whose marks name
 * only views of those definitions ({@link BatchSelection}); their passes run in one batch per
 * definition, target and kind — key-scoped or whole ({@link ViewRunner#runBatch}) — then every partition runs what is left of its
 * pass — the views handed back, those downstream of a view that changed — in dependency order, as a
 * pass of its own would ({@link ViewPasses}).
 *
 * <p>What it guarantees: each partition's outcome is its own (what it hands back is its retries
 * only), and each view's report is recorded as its own pass's; a failure of the deployment hands
 * every view of the batch back. The marks of the partitions taken stay pending with the scheduler
 * until their outcomes are back ({@link PassScheduler.Companions}).
 *
 * <p>Threads: the lanes' pool threads, the pass that took the batch's.
 */
final class BatchedPasses {

    private static final Logger log = LoggerFactory.getLogger(BatchedPasses.class);

    private final ViewPasses passes;

    private final BatchSelection batching;

    private final Predicate<String> owns;

    private final EngineClock clock;

    private final MaterializerListener listener;

    private final MaterializerOptions options;

    BatchedPasses(ViewPasses passes, BatchSelection batching, Predicate<String> owns, EngineClock clock,
            MaterializerListener listener, MaterializerOptions options) {
        this.passes = passes;
        this.batching = batching;
        this.owns = owns;
        this.clock = clock;
        this.listener = listener;
        this.options = options;
    }

    /**
     * Takes the companions of a pass: none when batching is off, the partition is not this instance's, or its marks name no work a batch can run.
     * @return the batch, the pass's own partition first; empty when the pass runs alone
     */
    Map<String, DirtySources> take(String partition, DirtySources dirty, PassScheduler.Companions companions) {
        if (options.passBatchSize() < 2 || !owns.test(partition)) {
            return Map.of();
        }
        Set<String> definitions = batching.definitionsOf(partition, dirty);
        if (definitions.isEmpty()) {
            return Map.of();
        }
        Map<String, DirtySources> others = companions.take(options.passBatchSize() - 1,
                (other, marks) -> owns.test(other) && batching.onlyOf(other, marks, definitions));
        if (others.isEmpty()) {
            return Map.of();
        }
        Map<String, DirtySources> batch = new LinkedHashMap<>();
        batch.put(partition, dirty);
        batch.putAll(others);
        return batch;
    }

    /**
     * Runs a batch: the passes of its views in one batch per definition, target and kind, then
     * what is left of each partition's pass in dependency order.
     * @param batch per partition, the marks its pass took
     * @return per partition, whether it ran here and what must run again
     */
    Map<String, PassScheduler.Ran> run(Map<String, DirtySources> batch) {
        ViewRunner current = passes.runner();
        Map<String, PassScheduler.Ran> ran = new HashMap<>();
        Map<String, DirtySources> retriesOf = new HashMap<>();
        for (String partition : batch.keySet()) {
            if (owns.test(partition)) {
                retriesOf.put(partition, new DirtySources());
            }
            else {
                ran.put(partition, PassScheduler.Ran.elsewhere());
            }
        }
        if (!readsAtItsChanges(current, batch, retriesOf.keySet())) {
            retriesOf.keySet().forEach(partition -> ran.put(partition, PassScheduler.Ran.here(batch.get(partition))));
            return ran;
        }
        Set<ViewKey> done = new HashSet<>();
        for (List<Batched> group : groups(current, batch, retriesOf).values()) {
            if (group.size() > 1) {
                runGroup(current, group, done);
            }
        }
        runWhatIsLeft(batch, retriesOf, done);
        retriesOf.forEach((partition, retries) -> ran.put(partition, PassScheduler.Ran.here(retries)));
        return ran;
    }

    /**
     * Waits until the server reads at the newest change the passes of the partitions cover.
     * @return false when it cannot: the passes then run again later
     */
    private boolean readsAtItsChanges(ViewRunner current, Map<String, DirtySources> batch, Set<String> partitions) {
        BsonTimestamp newest = null;
        for (Map.Entry<String, DirtySources> entry : batch.entrySet()) {
            if (!partitions.contains(entry.getKey())) {
                continue;
            }
            BsonTimestamp time = entry.getValue().clusterTime();
            if (time != null && (newest == null || time.compareTo(newest) > 0)) {
                newest = time;
            }
        }
        if (newest == null) {
            return true;
        }
        try {
            current.awaitClusterTime(newest);
            return true;
        }
        catch (MongoException ex) {
            log.warn("A batch of {} partitions could not read at the time of its changes ({}); they run again in {}",
                    partitions.size(), ex.getMessage(), Durations.text(options.rewatch()));
            return false;
        }
    }

    /**
     * The views of the partitions that run together, per definition, target and kind of pass, in the
     * order the partitions' batchable views come; each with its plan and the note of its status.
     */
    private Map<String, List<Batched>> groups(ViewRunner current, Map<String, DirtySources> batch,
            Map<String, DirtySources> retriesOf) {
        Map<String, List<Batched>> groups = new LinkedHashMap<>();
        // Views of a definition and target no other partition of the batch shares run alone: planned there, once
        for (Map.Entry<String, List<ViewDefinition>> shared : candidates(batch, retriesOf.keySet()).entrySet()) {
            if (shared.getValue().size() < 2) {
                continue;
            }
            for (ViewDefinition view : shared.getValue()) {
                String partition = view.partition();
                DirtySources dirty = batch.get(partition);
                PassPlanner.Plan plan = passes.plan(current, view, dirty);
                PassStatus note = new PassStatus(clock.now(), passes.covered(view, dirty, retriesOf.get(partition)),
                        passes.targetsRead(view));
                // Key-scoped and whole passes batch apart: a batch is of one kind
                String group = shared.getKey() + (plan.scope() == null ? "\0whole" : "");
                groups.computeIfAbsent(group, key -> new ArrayList<>())
                    .add(new Batched(new BatchMember(view, plan.scope(), note), note, plan.wholeBecause(), dirty,
                            retriesOf.get(partition)));
            }
        }
        return groups;
    }

    /** The batchable views of the partitions, per definition and target. */
    private Map<String, List<ViewDefinition>> candidates(Map<String, DirtySources> batch, Set<String> partitions) {
        Map<String, List<ViewDefinition>> candidates = new LinkedHashMap<>();
        for (String partition : partitions) {
            for (ViewDefinition view : batching.batchable(partition, batch.get(partition))) {
                candidates.computeIfAbsent(view.fingerprint() + "\0" + view.targetCollection(), key -> new ArrayList<>())
                    .add(view);
            }
        }
        return candidates;
    }

    /**
     * Runs what is left of each partition's pass in dependency order: the views its marks affect
     * that no group ran, and those downstream of a view that changed.
     */
    private void runWhatIsLeft(Map<String, DirtySources> batch, Map<String, DirtySources> retriesOf, Set<ViewKey> done) {
        for (Map.Entry<String, DirtySources> entry : retriesOf.entrySet()) {
            String partition = entry.getKey();
            DirtySources dirty = batch.get(partition);
            passes.runInOrder(partition, view -> !done.contains(view.key()) && dirty.affects(view.key().id(), view.collections()),
                    dirty, entry.getValue());
        }
    }

    /**
     * One view of a batch: its member, what its status says once it ends ok (the member's note, never
     * null here), why it runs whole when it does, and the marks and retries of its partition's pass.
     */
    private record Batched(BatchMember member, PassStatus note, @Nullable String wholeBecause, DirtySources dirty,
            DirtySources retries) {
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
                passes.runAgain(batched.member().view(), batched.dirty(), batched.retries(), ex.getMessage());
                done.add(batched.member().view().key());
            }
            return;
        }
        for (Batched batched : group) {
            ViewDefinition view = batched.member().view();
            PassReport report = run.reports().get(view.key());
            if (report != null) {
                if (batched.wholeBecause() != null) {
                    // Why it ran whole, as a lone pass says, and that it ran in a batch
                    report = report.scoped(PassScope.FULL, batched.wholeBecause() + "; " + report.scopeNote());
                }
                // Told as it ends: a batch has no moment of its own at which each view starts
                listener.onPassStarted(view.key());
                passes.recordOutcome(view, report, null, batched.note(), batched.dirty(), batched.retries());
                done.add(view.key());
            }
        }
        log.debug("A batch ran {} of {} views together; {} run alone", run.reports().size(), group.size(),
                run.handedBack().size());
    }
}
