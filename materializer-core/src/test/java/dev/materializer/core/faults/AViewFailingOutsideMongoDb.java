package dev.materializer.core.faults;

import java.util.List;
import java.util.Set;

/**
 * A view whose run fails in the engine, not in MongoDB: its rows have a top-level field starting
 * with {@code $}, which the driver refuses to write ({@link IllegalArgumentException}). It sorts
 * first among the views of its tenant. It must be errored with that message, and the other views of
 * its tenant must still run and converge.
 */
final class AViewFailingOutsideMongoDb implements FaultScenario {

    static final String FAILING = "t0/a-dollar-field";

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        run.shop.defineView("a-dollar-field", "t0", List.of(Shop.ORDERS), "dollarField",
                "{$group: {_id: '$status', n: {$sum: 1}}}", "{$limit: 1}",
                "{$replaceRoot: {newRoot: {$arrayToObject: {$literal: [['_id', 'all'], ['$n', 1]]}}}}");
        run.node("node-a").start();

        int events = run.shop.writes(10 + run.random.nextInt(20));
        run.note("view a-dollar-field of t0 writes a field '$n'; " + events + " change(s)");

        run.converge("a view failing outside MongoDB", run.shop.viewNames(), Set.of(FAILING));
        FaultChecks.requireErrored(run, "t0", "a-dollar-field", "$n");
    }
}
