package dev.materializer.core.faults;

import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;

/**
 * A view is given another target while writes go on: the revenue view of one tenant moves from
 * {@code revenue}, which the tenant's top view reads, to {@code revenue2}, which a second top view
 * of the tenant reads. The top view of the old target must run again and read nothing, the one of
 * the new target must read the revenue rows. On odd rolls the view is given its old target back
 * later in the load, where the versions it left still lie: then the first top view reads it again
 * and the second reads nothing. One or two instances.
 */
final class AViewRetargetedDuringLoad implements FaultScenario {

    static final String NEW_TARGET = "revenue2";

    @Override
    public void play(FaultRun run) throws InterruptedException {
        run.shop.seedData();
        run.shop.defineViews();
        String tenant = run.shop.tenant();
        String upstream = "rev-" + tenant;
        String second = "top2-" + tenant;
        run.shop.defineView(second, tenant, List.of(NEW_TARGET), "top2", "{$project: {_id: '$_id.id', revenue: 1}}");
        Set<String> views = run.shop.viewNames();
        views.add(tenant + "/" + second);
        List<Node> nodes = Lifecycle.start(run, run.random.nextBoolean() ? 2 : 1);
        run.converge("the first start", views, Set.of());

        int before = run.shop.writes(5 + run.random.nextInt(15));
        Runnable retarget = () -> run.shop.views().updateOne(Filters.eq("_id", upstream),
                Updates.set("targetCollection", NEW_TARGET));
        boolean down = run.random.nextInt(3) == 0;
        if (down) {
            Lifecycle.whileDown(run, nodes, retarget);
        }
        else {
            retarget.run();
        }
        int after = run.shop.writes(5 + run.random.nextInt(15));
        run.note(before + " change(s), " + upstream + " retargeted from revenue (read by top-" + tenant + ") to "
                + NEW_TARGET + " (read by " + second + ")" + (down ? " while down" : "") + ", " + after + " change(s)");
        run.converge("a view retargeted during load", views, Set.of());

        if (run.random.nextBoolean()) {
            int more = run.shop.writes(run.random.nextInt(10));
            run.shop.views().updateOne(Filters.eq("_id", upstream), Updates.set("targetCollection", "revenue"));
            int then = run.shop.writes(run.random.nextInt(10));
            run.note(more + " change(s), " + upstream + " given revenue back, " + then + " change(s)");
            run.converge("a view given its old target back during load", views, Set.of());
        }
    }
}
