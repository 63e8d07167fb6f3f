package dev.materializer.core.faults;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import org.bson.Document;

/**
 * A view is moved to another tenant (its partition field changed) while writes go on: a view of
 * its own target, read by a copy in its old tenant and by one in its new tenant. The view must then
 * hold the new tenant's rows, the old tenant's copy must read nothing and the new tenant's copy
 * the moved view's rows; and once the generation grace has passed, no row version of the old
 * tenant may be left in the target (invisible, but storage that would grow with every move). The
 * grace is short here, since it is judged in server time, which is real time on this server. One
 * or two instances; on some rolls the move comes while no instance runs.
 */
final class AViewMovedToAnotherTenantDuringLoad implements FaultScenario {

    static final Duration GRACE = Duration.ofSeconds(1);

    static final String MOVER = "mover";

    static final String TARGET = "moved";

    @Override
    public void play(FaultRun run) throws InterruptedException {
        run.generationGrace(GRACE);
        run.shop.seedData();
        run.shop.defineViews();
        String from = run.shop.tenant();
        String to = run.shop.tenants().stream().filter(tenant -> !tenant.equals(from)).toList()
            .get(run.random.nextInt(run.shop.tenants().size() - 1));
        run.shop.defineView(MOVER, from, List.of(Shop.ORDERS), TARGET,
                "{$group: {_id: '$status', quantity: {$sum: '$quantity'}, orders: {$sum: 1}}}");
        for (String tenant : List.of(from, to)) {
            run.shop.defineView("moved-copy-" + tenant, tenant, List.of(TARGET), "movedCopy",
                    "{$project: {_id: '$_id.id', quantity: 1}}");
        }
        List<Node> nodes = Lifecycle.start(run, run.random.nextBoolean() ? 2 : 1);
        run.converge("the first start", views(run, from, from, to), Set.of());

        int before = run.shop.writes(5 + run.random.nextInt(15));
        Runnable move = () -> run.shop.views().updateOne(Filters.eq("_id", MOVER), Updates.set(Shop.PARTITION, to));
        boolean down = run.random.nextInt(3) == 0;
        if (down) {
            Lifecycle.whileDown(run, nodes, move);
        }
        else {
            move.run();
        }
        int after = run.shop.writes(5 + run.random.nextInt(15));
        run.note(before + " change(s), " + MOVER + " moved from " + from + " to " + to + (down ? " while down" : "") + ", "
                + after + " change(s)");
        Set<String> views = views(run, to, from, to);
        run.converge("a view moved to another tenant during load", views, Set.of());

        // The old tenant's versions go once the grace has passed, in server time and on the run's clock.
        long movedAt = System.nanoTime();
        long graceOver = movedAt + GRACE.toNanos();
        try {
            Node.waitFor("the versions of " + from + " in " + TARGET + " to be removed after the grace").until(() -> {
                run.step();
                return System.nanoTime() - graceOver > 0 && Lifecycle.versionsOf(run, TARGET, from).isEmpty();
            });
        }
        catch (org.awaitility.core.ConditionTimeoutException ex) {
            List<Document> left = Lifecycle.versionsOf(run, TARGET, from);
            throw new FaultFound(run, "the grace after the move", left.size() + " row version(s) of " + from
                    + " left in " + TARGET + " " + Node.WAIT + " after the move converged (grace " + GRACE
                    + "), e.g. " + left.subList(0, Math.min(3, left.size())));
        }
        run.note("no version of " + from + " left in " + TARGET + " after the grace");
        run.converge("the grace after the move", views, Set.of());
    }

    private static Set<String> views(FaultRun run, String moverTenant, String from, String to) {
        Set<String> views = run.shop.viewNames();
        views.add(moverTenant + "/" + MOVER);
        views.add(from + "/moved-copy-" + from);
        views.add(to + "/moved-copy-" + to);
        return views;
    }
}
