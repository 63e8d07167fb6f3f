package dev.materializer.core.faults;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Two views of one tenant name the same target, so their rows would share partition and
 * collection, and each pass would take the other's rows for old generations. Two new ones are both
 * refused: errored, each last error naming the other view. The other views converge; in another
 * tenant a view of the same target is fine (partitions keep rows apart). Then a newcomer claims the
 * target that view holds in its tenant while writes go on: the newcomer is refused, naming the
 * holder, and the holder keeps converging.
 */
final class TwoViewsOfOneTenantShareATarget implements FaultScenario {

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        run.shop.defineView("dup-a", "t0", List.of(Shop.ORDERS), "shared", "{$group: {_id: '$product', n: {$sum: 1}}}");
        run.shop.defineView("dup-b", "t0", List.of(Shop.ORDERS), "shared", "{$group: {_id: '$status', n: {$sum: 1}}}");
        run.shop.defineView("alone", "t1", List.of(Shop.ORDERS), "shared", "{$group: {_id: '$product', n: {$sum: 1}}}");
        run.node("node-a").start();

        int events = run.shop.writes(10 + run.random.nextInt(20));
        run.note("dup-a and dup-b of t0 share the target 'shared', as does alone of t1; " + events + " change(s)");

        Set<String> mustConverge = new LinkedHashSet<>(run.shop.viewNames());
        mustConverge.add("t1/alone");
        run.converge("two views of one tenant sharing a target", mustConverge, Set.of("t0/dup-a", "t0/dup-b"));
        FaultChecks.requireErrored(run, "t0", "dup-a", "dup-b");
        FaultChecks.requireErrored(run, "t0", "dup-b", "dup-a");

        run.shop.defineView("late-dup", "t1", List.of(Shop.ORDERS), "shared", "{$group: {_id: '$status', n: {$sum: 1}}}");
        events = run.shop.writes(5 + run.random.nextInt(15));
        run.note("late-dup of t1 claims 'shared', which alone holds there; " + events + " change(s)");
        Set<String> withNewcomer = new LinkedHashSet<>(Set.of("t0/dup-a", "t0/dup-b", "t1/late-dup"));
        run.converge("a newcomer claiming a held target", mustConverge, withNewcomer);
        FaultChecks.requireErrored(run, "t1", "late-dup", "alone");
    }
}
