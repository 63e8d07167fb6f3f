package dev.materializer.core.engine;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewState;

/**
 * Which marked views may run in a batch with the views of other partitions: a view that is
 * {@code ok}, reads no other view's target, and whose partition has no contested target and no
 * catch-up, handover or replayed change to judge — key-scoped or whole, as its marks plan it. Anything else — an
 * errored view (its error is judged by a pass of its own), a view over a view, a shared target, a
 * catch-up — runs in its partition's own pass, as before. A batch changes how many commands the views cost, never which views run.
 *
 * <p>Threads: the lanes' pool threads; reads the registry (synchronized) only.
 */
final class BatchSelection {

    private final ViewRegistry registry;

    private final TargetClaims claims;

    private final Predicate<ViewDefinition> readsViewTargets;

    BatchSelection(ViewRegistry registry, TargetClaims claims, Predicate<ViewDefinition> readsViewTargets) {
        this.registry = registry;
        this.claims = claims;
        this.readsViewTargets = readsViewTargets;
    }

    /** The fingerprints of the views of a partition its marks let run in a batch; empty when none. */
    Set<String> definitionsOf(String partition, DirtySources marks) {
        Set<String> definitions = new HashSet<>();
        batchable(partition, marks).forEach(view -> definitions.add(view.fingerprint()));
        return definitions;
    }

    /**
     * Whether every view the marks of a partition affect may run in a batch and is of one of the
     * definitions given: only then is the partition taken into another's pass, so what it runs
     * besides the batch is at most its downstream views.
     */
    boolean onlyOf(String partition, DirtySources marks, Set<String> definitions) {
        if (marks.handover() || marks.everything() || marks.hasReplayed()) {
            return false;
        }
        List<ViewDefinition> views = registry.views(partition);
        if (!claims.contested(partition, views).isEmpty()) {
            return false;
        }
        boolean affected = false;
        for (ViewDefinition view : views) {
            if (marks.affects(view.key().id(), view.collections())) {
                if (!mayBatch(view) || !definitions.contains(view.fingerprint())) {
                    return false;
                }
                affected = true;
            }
        }
        return affected;
    }

    /** The views of a partition its marks affect that may run in a batch. */
    List<ViewDefinition> batchable(String partition, DirtySources marks) {
        if (marks.handover() || marks.everything() || marks.hasReplayed()) {
            return List.of();
        }
        List<ViewDefinition> views = registry.views(partition);
        if (!claims.contested(partition, views).isEmpty()) {
            return List.of();
        }
        List<ViewDefinition> batchable = new ArrayList<>();
        for (ViewDefinition view : views) {
            if (marks.affects(view.key().id(), view.collections()) && mayBatch(view)) {
                batchable.add(view);
            }
        }
        return batchable;
    }

    private boolean mayBatch(ViewDefinition view) {
        // Key-scoped or whole, as its marks plan it: a whole pass batches too while the views are small
        return registry.find(view.partition(), view.key().id()) == view && !registry.isBlocked(view.key())
                && registry.state(view.key()) == ViewState.OK && !readsViewTargets.test(view);
    }
}
