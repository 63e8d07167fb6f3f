package dev.materializer.core.faults;

import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Filters;

/**
 * The view a downstream view reads is deleted while writes go on: the revenue view of one tenant,
 * whose target the tenant's top view reads. Once it is gone its target holds no view's rows for the
 * tenant, so the top view must run again and read nothing; the other views converge as ever. On
 * some rolls a new view document (the same id, or another) then writes the tenant's revenue with
 * another pipeline, within the generation grace of the deleted one, whose row versions still lie
 * there: the new view must show only its own rows, and the top view read them. One or two
 * instances; on some rolls the delete comes while no instance runs.
 */
final class AnUpstreamViewDeletedDuringLoad implements FaultScenario {

    /** A revenue view unlike the shop's: units instead of money, so the top view's rows change. */
    static final String UNITS = "{$group: {_id: '$product', revenue: {$sum: '$quantity'}}}";

    @Override
    public void play(FaultRun run) throws InterruptedException {
        run.shop.seedData();
        run.shop.defineViews();
        String tenant = run.shop.tenant();
        String upstream = "rev-" + tenant;
        List<Node> nodes = Lifecycle.start(run, run.random.nextBoolean() ? 2 : 1);
        run.converge("the first start");

        int before = run.shop.writes(5 + run.random.nextInt(15));
        Runnable delete = () -> run.shop.views().deleteOne(Filters.eq("_id", upstream));
        boolean down = run.random.nextInt(3) == 0;
        if (down) {
            nodes = Lifecycle.whileDown(run, nodes, delete);
        }
        else {
            delete.run();
        }
        int after = run.shop.writes(5 + run.random.nextInt(15));
        run.note(before + " change(s), " + upstream + " (read by top-" + tenant + ") deleted" + (down ? " while down" : "")
                + ", " + after + " change(s)");
        Set<String> left = run.shop.viewNamesBut(tenant + "/" + upstream);
        run.converge("an upstream view deleted during load", left, Set.of());

        if (run.random.nextBoolean()) {
            // A new view document, without the status of the one deleted: the same id, or another.
            String newcomer = run.random.nextBoolean() ? upstream : "units-" + tenant;
            int more = run.shop.writes(run.random.nextInt(10));
            run.shop.defineView(newcomer, tenant, List.of(Shop.ORDERS), "revenue", UNITS);
            int then = run.shop.writes(run.random.nextInt(10));
            run.note(more + " change(s), " + newcomer + " writes revenue of " + tenant + " with another pipeline, " + then
                    + " change(s)");
            left.add(tenant + "/" + newcomer);
            run.converge("a new upstream view in the target the deleted one left", left, Set.of());
        }
    }
}
