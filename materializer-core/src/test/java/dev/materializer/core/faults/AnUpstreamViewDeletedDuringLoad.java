package dev.materializer.core.faults;

import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Filters;

/**
 * The view a downstream view reads is deleted while writes go on: the revenue view of one tenant,
 * whose target the tenant's top view reads. Once it is gone its target holds no view's rows for the
 * tenant, so the top view must run again and read nothing; the other views converge as ever. On
 * odd rolls the revenue view then comes back with another pipeline, and the top view reads it
 * again. One or two instances.
 */
final class AnUpstreamViewDeletedDuringLoad implements FaultScenario {

    /** A revenue view unlike the shop's: units instead of money, so the top view's rows change. */
    static final String UNITS = "{$group: {_id: '$product', revenue: {$sum: '$quantity'}}}";

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        String tenant = run.shop.tenant();
        String upstream = "rev-" + tenant;
        Lifecycle.start(run, run.random.nextBoolean() ? 2 : 1);
        run.converge("the first start");

        int before = run.shop.writes(5 + run.random.nextInt(15));
        run.shop.views().deleteOne(Filters.eq("_id", upstream));
        int after = run.shop.writes(5 + run.random.nextInt(15));
        run.note(before + " change(s), " + upstream + " (read by top-" + tenant + ") deleted, " + after + " change(s)");
        Set<String> left = run.shop.viewNamesBut(tenant + "/" + upstream);
        run.converge("an upstream view deleted during load", left, Set.of());

        if (run.random.nextBoolean()) {
            int more = run.shop.writes(run.random.nextInt(10));
            run.shop.defineView(upstream, tenant, List.of(Shop.ORDERS), "revenue", UNITS);
            int then = run.shop.writes(run.random.nextInt(10));
            run.note(more + " change(s), " + upstream + " back with another pipeline, " + then + " change(s)");
            run.converge("the upstream view back");
        }
    }
}
