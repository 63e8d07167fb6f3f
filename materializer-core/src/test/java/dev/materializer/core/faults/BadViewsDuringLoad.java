package dev.materializer.core.faults;

import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Updates;
import org.bson.Document;

/**
 * Views that cannot run, or that routing may choke on, among good ones while writes go on: one
 * without sources, one whose pipeline is not an array, and one whose {@code sourceFields} name a
 * blank field. They are there at the start or come during the load, as the seed says; once the
 * views converged, one update comes alone. The bad ones are errored (the blank-field one may run or
 * be errored); every good view converges.
 */
final class BadViewsDuringLoad implements FaultScenario {

    static final String NO_SOURCES = "t1/bad-no-sources";

    static final String NOT_A_PIPELINE = "t0/bad-pipeline";

    static final String BLANK_FIELD = "t2/blank-field";

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        boolean early = run.random.nextBoolean();
        if (early) {
            addBadViews(run);
        }
        Node node = run.node("node-a").start();
        run.note("bad views " + (early ? "before the start" : "during the load"));

        int events = run.shop.writes(5 + run.random.nextInt(15));
        if (!early) {
            addBadViews(run);
        }
        events += run.shop.writes(10 + run.random.nextInt(20));
        run.note(events + " change(s)");

        Set<String> badViews = Set.of(NO_SOURCES, NOT_A_PIPELINE, BLANK_FIELD);
        run.converge("bad views during load", run.shop.viewNames(), badViews);
        FaultChecks.requireErrored(run, "t1", "bad-no-sources", "collections");
        FaultChecks.requireErrored(run, "t0", "bad-pipeline", "pipeline");

        // Alone, once every earlier change was heard, so no other write's pass reads it by chance: an
        // update, which on this server reaches every tenant, the blank-field view's included.
        node.awaitHeardEverything();
        String order = run.shop.anyOrder();
        run.shop.updateOrder(order, Updates.inc("quantity", 1));
        run.note("then one update of " + order + " alone");
        run.converge("an update among bad views", run.shop.viewNames(), badViews);
        node.drain();
    }

    private static void addBadViews(FaultRun run) {
        run.shop.views().insertOne(new Document("_id", "bad-no-sources").append(Shop.PARTITION, "t1")
            .append("collections", List.of()).append("pipeline", List.of()).append("targetCollection", "nowhere"));
        run.shop.views().insertOne(new Document("_id", "bad-pipeline").append(Shop.PARTITION, "t0")
            .append("collections", List.of(Shop.ORDERS)).append("pipeline", "not an array")
            .append("targetCollection", "nowhere"));
        run.shop.views().insertOne(Shop.view("blank-field", "t2", List.of(Shop.ORDERS), "blankField",
                "{$group: {_id: '$status', quantity: {$sum: '$quantity'}}}")
            .append("sourceFields", new Document(Shop.ORDERS, List.of(" "))));
    }
}
