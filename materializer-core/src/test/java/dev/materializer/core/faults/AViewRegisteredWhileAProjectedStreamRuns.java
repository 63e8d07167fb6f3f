package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.materializer.core.engine.EngineProbe;

/**
 * Key-scoped views are registered while the source streams run projected (the in-process server
 * has no {@code $changeStreamSplitLargeEvent}, so a stream keeps only the fields routing and the
 * registered views' keys need): views keyed by fields the open stream of orders does not keep — a
 * per-document view keyed by the orders' {@code code}, a {@code $group} by customer, by price, or
 * by a compound key. They come during the load; every insert and update before and after must
 * reach them. Once the views converged, inserts come alone (an update reaches every view on this
 * server, and its pass would repair what an insert lost): each must reach the new views too.
 */
final class AViewRegisteredWhileAProjectedStreamRuns implements FaultScenario {

    private static final String[][] NEWCOMERS = {
        {"by-code", "byCode", "{$project: {_id: '$code', quantity: 1, price: 1, status: 1}}"},
        {"by-customer", "perCustomer", "{$group: {_id: '$customer', orders: {$sum: 1}, quantity: {$sum: '$quantity'}}}"},
        {"by-price", "perPrice", "{$group: {_id: '$price', orders: {$sum: 1}}}"},
        {"by-customer-quantity", "perCustomerQuantity",
            "{$group: {_id: {c: '$customer', q: '$quantity'}, orders: {$sum: 1}}}"},
    };

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        List<Node> nodes = Lifecycle.start(run, run.random.nextBoolean() ? 2 : 1);
        run.converge("the first start");
        run.note("the stream of orders keeps " + describe(EngineProbe.imagePaths(nodes.get(0).engine, Shop.ORDERS)));

        Set<String> views = run.shop.viewNames();
        List<String> added = new ArrayList<>();
        List<String> tenants = new ArrayList<>();
        int events = run.shop.writes(run.random.nextInt(10));
        for (String[] newcomer : NEWCOMERS) {
            if (added.isEmpty() && newcomer == NEWCOMERS[NEWCOMERS.length - 1] || run.random.nextInt(3) == 0) {
                String tenant = run.shop.tenant();
                String id = newcomer[0] + "-" + tenant;
                run.shop.defineView(id, tenant, List.of(Shop.ORDERS), newcomer[1], newcomer[2]);
                views.add(tenant + "/" + id);
                added.add(id);
                tenants.add(tenant);
                events += run.shop.writes(run.random.nextInt(8));
            }
        }
        events += run.shop.writes(5 + run.random.nextInt(10));
        run.note(added + " registered during the load of " + events + " change(s)");
        run.converge("views registered while a projected stream runs", views, Set.of());
        run.note("the stream of orders keeps " + describe(EngineProbe.imagePaths(nodes.get(0).engine, Shop.ORDERS)));

        // Converged is not heard: a late event's pass would read the inserts below by chance.
        nodes.forEach(Node::awaitHeardEverything);
        Shop.OneTenant alone = run.shop.insertsInto(run.shop.pick(tenants), 1 + run.random.nextInt(5));
        run.note(alone + " alone");
        run.converge("inserts after the registration", views, Set.of());
    }

    private static String describe(Set<String> paths) {
        return paths == null ? "whole images" : "the paths " + paths;
    }
}
