package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;

/**
 * Views leave and arrive while writes go on, on one instance or two (as the seed says), in an order
 * the seed picks: t0's revenue view, which t0's top view reads, is deleted; t1's revenue view is
 * given another target; t1's status view moves to a tenant of its own; t2's status view moves to
 * t0, whose status view holds that target there. Every view left converges, the views over a
 * revenue view that left read nothing of it, and the newcomer in t0 is refused, naming the holder.
 */
final class ViewLifecycleDuringLoad implements FaultScenario {

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        boolean two = run.random.nextBoolean();
        Node a = run.node("node-a").start();
        if (two) {
            Node b = run.node("node-b").start();
            run.awaitLive(a, b);
        }
        run.note(two ? "two instances" : "one instance");

        List<Runnable> operations = new ArrayList<>(List.of(
                () -> {
                    run.shop.views().deleteOne(Filters.eq("_id", "rev-t0"));
                    run.note("rev-t0, read by top-t0, deleted");
                },
                () -> {
                    run.shop.views().updateOne(Filters.eq("_id", "rev-t1"), Updates.set("targetCollection", "revenue2"));
                    run.note("rev-t1, read by top-t1, given the target revenue2");
                },
                () -> {
                    run.shop.views().updateOne(Filters.eq("_id", "status-t1"), Updates.set(Shop.PARTITION, "t9"));
                    run.note("status-t1 moved to t9");
                },
                () -> {
                    run.shop.views().updateOne(Filters.eq("_id", "status-t2"), Updates.set(Shop.PARTITION, "t0"));
                    run.note("status-t2 moved to t0, where status-t0 holds byStatus");
                }));
        int events = run.shop.writes(5 + run.random.nextInt(10));
        while (!operations.isEmpty()) {
            operations.remove(run.random.nextInt(operations.size())).run();
            events += run.shop.writes(run.random.nextInt(8));
        }
        run.note(events + " change(s)");

        Set<String> mustConverge = new LinkedHashSet<>(run.shop.viewNames());
        mustConverge.removeAll(Set.of("t0/rev-t0", "t1/status-t1", "t2/status-t2"));
        mustConverge.add("t9/status-t1");
        run.converge("views leaving and arriving during load", mustConverge, Set.of("t0/status-t2"));
        FaultChecks.requireErrored(run, "t0", "status-t2", "status-t0");
    }
}
