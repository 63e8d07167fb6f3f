package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Source documents whose partition field is not a tenant's name, written among good ones: missing,
 * null, numbers, an empty string, a document, a boolean; in a second scenario, arrays (which a
 * query for a tenant matches when they hold its name). Odd orders are inserted, moved into tenants
 * and out of them, and deleted during the load; once the views converged, a few odd orders are
 * inserted alone, since any update or delete reaches every tenant on this server and its pass would
 * repair what an odd insert did. Every view converges.
 */
final class OddPartitionValuesDuringLoad implements FaultScenario {

    private static final List<Object> ODD = List.of(Shop.NO_PARTITION, 7, 7.5, "", new Document("tenant", "t0"), true);

    private static final List<Object> ARRAYS = List.of(List.of("t0"), List.of("t1", "t2"), List.of());

    private final boolean arrays;

    OddPartitionValuesDuringLoad(boolean arrays) {
        this.arrays = arrays;
    }

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        Node node = run.node("node-a").start();
        run.converge("the first start");

        int odd = 0;
        List<String> oddIds = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            run.shop.writes(run.random.nextInt(10));
            for (int i = 0; i < 2 + run.random.nextInt(4); i++) {
                oddWrite(run, oddIds);
                odd++;
            }
        }
        run.note(odd + " write(s) of odd partition values ("
                + (arrays ? "arrays" : "missing, null, numbers, '', a document, true") + ") among the load");
        run.converge("odd partition values during load");
        // Converged is not heard: a late event's pass would read the inserts below by chance.
        node.awaitHeardEverything();

        // Alone after the load, so no pass that other writes cause reads them by chance.
        int inserts = 1 + run.random.nextInt(4);
        for (int i = 0; i < inserts; i++) {
            // An empty array names no tenant, for the router and for a query alike: leave it to the load.
            Object value = arrays ? run.shop.pick(ARRAYS.subList(0, 2)) : oddValue(run);
            oddIds.add(run.shop.insertOrder(value, "t0-c0"));
        }
        run.note(inserts + " insert(s) of odd orders alone");

        run.converge("inserts of odd partition values");
    }

    private void oddWrite(FaultRun run, List<String> oddIds) {
        int roll = oddIds.isEmpty() ? run.random.nextInt(2) : run.random.nextInt(4);
        if (roll == 0) {
            oddIds.add(run.shop.insertOrder(oddValue(run), run.shop.tenant() + "-c0"));
        }
        else if (roll == 1) {
            // An order leaves its tenant for an odd value.
            String id = run.shop.anyOrder();
            run.shop.updateOrder(id, oddUpdate(run));
            oddIds.add(id);
        }
        else if (roll == 2) {
            // An odd order comes back into a tenant.
            String id = oddIds.remove(run.random.nextInt(oddIds.size()));
            run.shop.updateOrder(id, Updates.set(Shop.PARTITION, run.shop.tenant()));
        }
        else {
            String id = oddIds.remove(run.random.nextInt(oddIds.size()));
            run.shop.deleteOrder(id);
        }
    }

    private Object oddValue(FaultRun run) {
        List<Object> values = arrays ? ARRAYS : ODD;
        if (!arrays && run.random.nextInt(ODD.size() + 1) == 0) {
            return null;
        }
        return values.get(run.random.nextInt(values.size()));
    }

    private Bson oddUpdate(FaultRun run) {
        Object value = oddValue(run);
        return value == Shop.NO_PARTITION ? Updates.unset(Shop.PARTITION) : Updates.set(Shop.PARTITION, value);
    }
}
