package dev.materializer.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Updates;
import dev.materializer.core.CapturedLog;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.cluster.Rendezvous;
import dev.materializer.core.server.SourceIndexes;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.ViewState;
import dev.materializer.testing.Capability;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.RequiresCapability;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's behaviours end to end through the MongoDB driver, written once and run against
 * each kind of server: the in-process test server and, where one is available, a real replica set.
 */
abstract class MaterializerContract {

    static final String REVENUE = "{\"$group\": {\"_id\": \"$product\", \"revenue\": {\"$sum\": {\"$multiply\": [\"$quantity\", \"$price\"]}}}}";

    static Document order(String id, String tenant, String product, int quantity, int price) {
        return new Document("_id", id).append("_part", tenant).append("product", product)
            .append("quantity", quantity).append("price", price).append("customer", "c-" + id);
    }

    /** The last pass of acme's revenue view was restricted to one key and wrote its one row. */
    static void assertTheLastPassRecomputedOneProduct(EngineFixture f) {
        assertThat(f.events.passesOf("acme", "revenue")).last().satisfies(report -> {
            assertThat(report.scope()).isEqualTo(dev.materializer.core.PassScope.KEYS);
            assertThat(report.scopeNote()).isEqualTo("1 key of product");
            assertThat(report.rowsWritten()).isEqualTo(1);
        });
    }

    static Document row(String id, Object... fields) {
        Document row = new Document("id", id);
        for (int i = 0; i < fields.length; i += 2) {
            row.append((String) fields[i], fields[i + 1]);
        }
        return row;
    }

    @Test
    void aViewMaterializesThePipelineResultOfItsPartitionOnly(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 2, 3),
                    order("o2", "acme", "pear", 1, 5), order("o3", "globex", "apple", 10, 10)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);

            f.start();

            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
            assertThat(f.events.passesOf("acme", "revenue")).as("a first start runs a new view once").hasSize(1);
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
            assertThat(f.status("revenue").get("generation")).isInstanceOf(Long.class);
        }
    }

    @Test
    void insertsUpdatesAndDeletesOfSourcesShowInTheTarget(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("quantity", 4));
            f.events.awaitChanges(2);
            f.settle();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 12), row("pear", "revenue", 5));

            f.collection("orders").deleteOne(Filters.eq("_id", "o2"));
            f.events.awaitChanges(3);
            f.settle();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 12));
        }
    }

    @Test
    void aChangeOfOneKeyRecomputesOnlyThatKeyAndAnErroredViewRunsWholeUntilItIsRight(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.events.clear();
            f.collection("orders").insertOne(order("o3", "acme", "pear", 1, 1));
            f.events.awaitChanges(1);
            f.settle();
            assertTheLastPassRecomputedOneProduct(f);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 6));

            // A row without a key errors the view; a change of another key must not make it ok again
            f.collection("orders").insertOne(new org.bson.Document("_id", "o4").append("_part", "acme").append("quantity", 1)
                .append("price", 1));
            f.events.awaitChanges(2);
            f.settle();
            assertThat(f.status("revenue").getString("state")).isEqualTo("errored");
            f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("quantity", 3));
            f.events.awaitChanges(3);
            f.settle();
            assertThat(f.status("revenue").getString("state")).as("still errored: a whole pass found the row").isEqualTo("errored");
            assertThat(f.events.passesOf("acme", "revenue")).last().satisfies(report ->
                assertThat(report.scope()).isEqualTo(dev.materializer.core.PassScope.FULL));

            f.collection("orders").deleteOne(Filters.eq("_id", "o4"));
            f.events.awaitChanges(4);
            f.settle();
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 9), row("pear", "revenue", 6));
        }
    }

    @Test
    void aViewDocumentReplacedWithoutItsStatusGetsItBackAtOnceWithoutAPass(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            Object generation = f.status("revenue").get("generation");
            f.events.clear();

            // As a Spring Data save() of the unchanged definition does: the status field is gone
            Document replaced = f.viewDocument("revenue");
            replaced.remove(f.options.statusField());
            f.views().replaceOne(Filters.eq("_id", "revenue"), replaced);
            // No clock moves: the engine puts it back as soon as it hears the replace, not after a pass
            await().atMost(RecordingListener.WAIT).until(() -> f.status("revenue").get("generation") != null);

            assertThat(f.status("revenue").get("generation")).as("the generation the engine knew").isEqualTo(generation);
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
            assertThat(f.rows("revenue", "revenue")).as("readers see the view again, each row once")
                .containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
            f.settle();
            assertThat(f.events.passesOf("acme", "revenue")).as("nothing was written anew").isEmpty();
            assertThat(f.db.getCollection("revenue").countDocuments(Filters.eq("_part", "acme"))).isEqualTo(2);

            f.collection("orders").insertOne(order("o3", "acme", "pear", 1, 1));
            f.events.awaitChanges(1);
            f.settle();
            assertThat(f.rows("revenue", "revenue")).as("passes go on from the restored status")
                .containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 6));
            assertThat(f.events.passesOf("acme", "revenue")).last()
                .satisfies(report -> assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED));
        }
    }

    @Test
    void aChangeThatOnlyReordersTheFieldsOfAnEmbeddedDocumentIsWrittenAndVerifySeesIt(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("items").insertOne(new Document("_id", "i1").append("_part", "acme")
                .append("spec", new Document("x", 1).append("y", "s")));
            f.defineView("specs", "acme", List.of("items"), "specs", "{\"$project\": {\"spec\": 1}}");
            f.start();
            assertThat(f.rows("specs", "specs")).singleElement()
                .satisfies(row -> assertThat(row.get("spec", Document.class).keySet()).containsExactly("x", "y"));

            // Equal field by field but in another order: MongoDB tells the two apart, so must the view.
            f.events.clear();
            f.collection("items").replaceOne(Filters.eq("_id", "i1"), new Document("_part", "acme")
                .append("spec", new Document("y", "s").append("x", 1)));
            f.events.awaitChanges(1);

            assertThat(f.engine.verify("acme", "specs").get().changed()).as("verify before the pass").isEqualTo(1);
            f.settle();
            assertThat(f.events.passesOf("acme", "specs")).last()
                .satisfies(report -> assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED));
            assertThat(f.rows("specs", "specs")).singleElement()
                .satisfies(row -> assertThat(row.get("spec", Document.class).keySet()).containsExactly("y", "x"));
            assertThat(f.engine.verify("acme", "specs").get().inSync()).as("verify after the pass").isTrue();
        }
    }

    @Test
    void anUnchangedResultWritesNothing(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            Object generation = f.status("revenue").get("generation");

            f.events.clear();
            f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("note", "not read by the view"));
            f.events.awaitChanges(1);
            f.settle();

            List<PassReport> passes = f.events.passesOf("acme", "revenue");
            assertThat(passes).isNotEmpty().allSatisfy(report -> {
                assertThat(report.outcome()).isEqualTo(PassOutcome.UNCHANGED);
                assertThat(report.rowsWritten()).isZero();
                assertThat(report.rowsRemoved()).isZero();
            });
            assertThat(f.status("revenue").get("generation")).isEqualTo(generation);
        }
    }

    @Test
    void aChainOfViewsRunsInOnePass(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            // A row of another view's target has the stored _id {partition, generation, id}: re-key by its id.
            f.defineView("best", "acme", List.of("revenue"), "best", "{\"$project\": {\"_id\": \"$_id.id\", \"revenue\": 1}}",
                    "{\"$sort\": {\"revenue\": -1}}", "{\"$limit\": 1}");
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(f.status("best").getString("lastError")).isNull();
            assertThat(f.rows("best", "best")).containsExactly(row("apple", "revenue", 6));

            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 10, 5));
            f.events.awaitChanges(1);
            f.clock.advance(EngineFixture.DEBOUNCE);
            f.drain();

            assertThat(f.rows("best", "best")).as("after a single debounce").containsExactly(row("pear", "revenue", 50));
            List<String> order = f.events.passes.stream().map(report -> report.view().id()).toList();
            assertThat(order).containsSubsequence("revenue", "best");
        }
    }

    @Test
    void viewsInACycleAreMarkedCycleAndRunOnceTheCycleBreaks(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("a").insertOne(new Document("_id", "x").append("_part", "acme").append("n", 1));
            f.defineView("a-to-b", "acme", List.of("a"), "b", "{\"$project\": {\"n\": 1}}");
            f.defineView("b-to-a", "acme", List.of("b"), "a", "{\"$project\": {\"n\": 1}}");
            f.start();

            assertThat(f.status("a-to-b").getString("state")).isEqualTo("cycle");
            assertThat(f.status("b-to-a").getString("state")).isEqualTo("cycle");
            assertThat(f.engine.view("acme", "a-to-b")).hasValueSatisfying(view -> assertThat(view.state()).isEqualTo(ViewState.CYCLE));

            f.views().deleteOne(Filters.eq("_id", "b-to-a"));
            f.awaitStatus("a-to-b", "ok");
            f.settle();

            assertThat(f.rows("a-to-b", "b")).containsExactly(row("x", "n", 1));
        }
    }

    @Test
    void aMalformedViewIsErroredWithTheReasonAndOthersRun(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.views().insertOne(new Document("_id", "broken").append("_part", "acme").append("collections", List.of())
                .append("pipeline", List.of()).append("targetCollection", "t"));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            assertThat(f.status("broken").getString("state")).isEqualTo("errored");
            assertThat(f.status("broken").getString("lastError")).contains("collections");
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
        }
    }

    @Test
    void aPipelineThatWritesIsErroredByTheScopeGuard(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("writer", "acme", List.of("orders"), "out", "{\"$merge\": {\"into\": \"elsewhere\"}}");
            f.start();

            assertThat(f.status("writer").getString("state")).isEqualTo("errored");
            assertThat(f.status("writer").getString("lastError")).contains("$merge");
            assertThat(f.db.listCollectionNames().into(new ArrayList<>())).doesNotContain("elsewhere");
        }
    }

    @Test
    void aPipelineReadingAForeignCollectionIsErrored(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("peek", "acme", List.of("orders"), "peek",
                    "{\"$lookup\": {\"from\": \"secrets\", \"localField\": \"customer\", \"foreignField\": \"_id\", \"as\": \"s\"}}");
            f.start();

            assertThat(f.status("peek").getString("state")).isEqualTo("errored");
            assertThat(f.status("peek").getString("lastError")).contains("secrets");
        }
    }

    @Test
    void aResultOverMaxRowsIsErroredWithTheLimitNamed(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.maxRows(3).maxTransactionRows(3))) {
            for (int i = 0; i < 5; i++) {
                f.collection("orders").insertOne(order("o" + i, "acme", "p" + i, 1, 1));
            }
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            assertThat(f.status("revenue").getString("state")).isEqualTo("errored");
            assertThat(f.status("revenue").getString("lastError")).contains("3");
        }
    }

    @Test
    void partitionsWithEqualKeysShareATargetWithoutColliding(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "globex", "apple", 2, 2)));
            f.defineView("revenue-acme", "acme", List.of("orders"), "revenue", REVENUE);
            f.defineView("revenue-globex", "globex", List.of("orders"), "revenue", REVENUE);
            f.start();

            assertThat(f.rows("revenue-acme", "revenue")).containsExactly(row("apple", "revenue", 1));
            assertThat(f.rows("revenue-globex", "revenue")).containsExactly(row("apple", "revenue", 4));
        }
    }

    @Test
    void aLargeViewGoesThroughGenerationsAndReadersAlwaysSeeOneWholeGeneration(TestMongo mongo) throws Exception {
        // More than one group of writes everywhere; fewer rows on the in-process server, where each
        // upsert naming the partition scans the target while the reader below scans it too.
        int rows = mongo.kind() == MongoKind.IN_PROCESS ? 1500 : 2500;
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.maxTransactionRows(10))) {
            List<Document> orders = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                orders.add(order(String.format("o%05d", i), "acme", String.format("p%05d", i), 1, 1));
            }
            f.collection("orders").insertMany(orders);
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            // Whole passes: a key-scoped one publishes the keys of the events heard so far (the
            // stream hands them over in batches), so a generation may rightly hold old and new values
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("incremental", false));
            f.start();
            assertThat(f.rows("revenue", "revenue")).hasSize(rows);

            AtomicBoolean reading = new AtomicBoolean(true);
            AtomicInteger reads = new AtomicInteger();
            AtomicReference<String> torn = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                while (reading.get() && torn.get() == null) {
                    Document view = f.viewDocument("revenue");
                    List<Document> seen = f.db.getCollection("revenue")
                        .find(ViewFilter.of(view)).into(new ArrayList<>());
                    Set<Object> prices = new java.util.HashSet<>();
                    seen.forEach(row -> prices.add(row.get("revenue")));
                    // Every row changes at each step: a whole generation has one value in all of them
                    if (seen.size() != rows || prices.size() != 1) {
                        torn.set(seen.size() + " rows, values " + prices);
                    }
                    reads.incrementAndGet();
                }
            });
            reader.start();
            f.collection("orders").updateMany(Filters.eq("_part", "acme"), Updates.set("price", 7));
            // Every order changed: settle only once the stream handed over all of them, or a late
            // event's pass may still be to come when the rows are compared (seen once under load)
            f.events.awaitChanges(rows);
            f.settle();
            await().atMost(RecordingListener.WAIT).until(() -> reads.get() > 3);
            reading.set(false);
            reader.join();

            assertThat(torn.get()).as("a read saw a mix of generations or a partial one").isNull();
            assertThat(f.rows("revenue", "revenue")).hasSize(rows).allSatisfy(row -> assertThat(row.get("revenue")).isEqualTo(7));
            assertThat(f.events.passesOf("acme", "revenue")).anySatisfy(report -> assertThat(report.mode().name()).isEqualTo("GENERATION"));
        }
    }

    @Test
    void threeInstancesOnOneDatabaseConvergeOnOneGeneration(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        List<EngineFixture> instances = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                String name = "instance-" + i;
                instances.add(new EngineFixture(mongo, clock, builder -> builder.instanceId(name).maxTransactionRows(1)));
            }
            EngineFixture first = instances.get(0);
            first.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 2)));
            first.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            instances.forEach(EngineFixture::start);

            for (int round = 0; round < 5; round++) {
                first.collection("orders").insertOne(order("n" + round, "acme", "fig", 1, round));
            }
            instances.forEach(instance -> instance.events.awaitChanges(5));
            for (int i = 0; i < 3; i++) {
                instances.forEach(EngineFixture::settle);
            }

            assertThat(first.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1),
                    row("fig", "revenue", 10), row("pear", "revenue", 2));
            Document status = first.status("revenue");
            assertThat(status.getString("state")).isEqualTo("ok");
            long inCurrent = first.db.getCollection("revenue").countDocuments(ViewFilter.of(first.viewDocument("revenue")));
            assertThat(inCurrent).as("the current generation is whole and alone").isEqualTo(3);
        }
        finally {
            instances.forEach(EngineFixture::close);
        }
    }

    @Test
    void twoInstancesShareTheWorkOfAChangeInsteadOfEachRunningIt(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        int partitions = 10;
        try (EngineFixture a = new EngineFixture(mongo, clock, builder -> builder.instanceId("node-a"));
                EngineFixture b = new EngineFixture(mongo, clock, builder -> builder.instanceId("node-b"))) {
            startTwoWithOneViewPerPartition(a, b, clock, partitions);

            a.events.clear();
            b.events.clear();
            for (int p = 0; p < partitions; p++) {
                a.collection("orders").insertOne(order("n" + p, "t" + p, "fig", 2, 5));
            }
            a.events.awaitChanges(partitions);
            b.events.awaitChanges(partitions);
            a.settle();
            b.settle();
            a.settle();

            int passesOfA = a.events.passes.size();
            int passesOfB = b.events.passes.size();
            System.out.printf("2 instances x %d partitions, one change each: %d + %d = %d passes%n", partitions,
                    passesOfA, passesOfB, passesOfA + passesOfB);
            assertThat(passesOfA + passesOfB).as("one pass per partition over both instances").isEqualTo(partitions);
            assertThat(passesOfA).as("node-a owns some partitions").isPositive();
            assertThat(passesOfB).as("node-b owns some partitions").isPositive();
            for (int p = 0; p < partitions; p++) {
                assertThat(a.rows("revenue-t" + p, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 10));
            }
        }
    }

    @Test
    void twoInstancesCountEachViewOnceByItsOwner(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        int partitions = 10;
        try (EngineFixture a = new EngineFixture(mongo, clock, builder -> builder.instanceId("node-a"));
                EngineFixture b = new EngineFixture(mongo, clock, builder -> builder.instanceId("node-b"))) {
            startTwoWithOneViewPerPartition(a, b, clock, partitions);

            Map<ViewState, Integer> owned = new java.util.HashMap<>();
            a.engine.ownedViewCounts().forEach((state, count) -> owned.merge(state, count, Integer::sum));
            b.engine.ownedViewCounts().forEach((state, count) -> owned.merge(state, count, Integer::sum));
            assertThat(owned).as("each view once, by its owner, in its state there")
                .containsEntry(ViewState.OK, partitions).containsEntry(ViewState.PENDING, 0).containsEntry(ViewState.ERRORED, 0);
            assertThat(a.engine.ownedViewCounts().get(ViewState.OK)).as("node-a owns some").isPositive();
            assertThat(b.engine.ownedViewCounts().get(ViewState.OK)).as("node-b owns some").isPositive();
            // Each still knows every view: the endpoint's counts are this instance's.
            assertThat(a.engine.viewCounts().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(partitions);
            assertThat(b.engine.viewCounts().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(partitions);
            // The views stream and the orders stream, on each.
            assertThat(a.engine.watchedStreams()).isEqualTo(2);
            assertThat(a.engine.summary().openStreams()).isEqualTo(2);
        }
    }

    @Test
    void anInstanceThatStopsHandsItsPartitionsOverAtTheOthersNextHeartbeat(TestMongo mongo) {
        int partitions = 10;
        try (EngineFixture a = new EngineFixture(mongo, builder -> builder.instanceId("node-a"));
                EngineFixture b = new EngineFixture(mongo, builder -> builder.instanceId("node-b"))) {
            for (int p = 0; p < partitions; p++) {
                a.collection("orders").insertOne(order("o" + p, "t" + p, "apple", 1, 1));
                a.defineView("revenue-t" + p, "t" + p, List.of("orders"), "revenue", REVENUE);
            }
            a.start();
            b.start();
            a.clock.advance(a.options.partitionLease().dividedBy(3));
            awaitLive(a, "node-a", "node-b");
            String tenant = partitionOwnedBy("node-a", partitions, "node-a", "node-b");

            a.close();
            b.events.clear();
            a.collection("orders").insertOne(order("late", tenant, "fig", 2, 5));
            b.events.awaitChanges(1);
            b.settle();
            assertThat(b.events.passesOf(tenant, "revenue-" + tenant)).as("not node-b's partition yet").isEmpty();

            b.clock.advance(b.options.partitionLease().dividedBy(3));
            await().atMost(RecordingListener.WAIT).untilAsserted(() -> assertThat(b.rows("revenue-" + tenant, "revenue"))
                .containsExactly(row("apple", "revenue", 1), row("fig", "revenue", 10)));
            assertThat(EngineProbe.liveInstances(b.engine)).containsExactly("node-b");
        }
    }

    @Test
    void theLeaseOfAnInstanceThatFellSilentRunsOutAndItsPartitionsMove(TestMongo mongo) {
        int partitions = 10;
        Duration lease = Duration.ofSeconds(2);
        try (EngineFixture b = new EngineFixture(mongo, builder -> builder.instanceId("node-b").partitionLease(lease))) {
            for (int p = 0; p < partitions; p++) {
                b.collection("orders").insertOne(order("o" + p, "t" + p, "apple", 1, 1));
                b.defineView("revenue-t" + p, "t" + p, List.of("orders"), "revenue", REVENUE);
            }
            b.start();
            // An instance that crashed: it beat once and never again, and never left.
            b.db.getCollection(b.options.checkpointsCollection()).updateOne(Filters.eq("_id", "instance:ghost"),
                    Updates.combine(Updates.set("kind", "instance"), Updates.set("instance", "ghost"),
                            Updates.set("ready", true), Updates.currentDate("beatAt")),
                    new com.mongodb.client.model.UpdateOptions().upsert(true));
            b.clock.advance(lease.dividedBy(3));
            awaitLive(b, "ghost", "node-b");
            String tenant = partitionOwnedBy("ghost", partitions, "ghost", "node-b");

            b.collection("orders").insertOne(order("late", tenant, "fig", 2, 5));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                b.clock.advance(lease.dividedBy(3));
                b.drain();
                assertThat(b.rows("revenue-" + tenant, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 10));
            });
            assertThat(EngineProbe.liveInstances(b.engine)).containsExactly("node-b");
        }
    }

    /**
     * One order and one revenue view in each of the partitions t0, t1, ...; both instances started
     * and seeing each other live (a sees b at the heartbeat after b was ready), and settled.
     */
    private static void startTwoWithOneViewPerPartition(EngineFixture a, EngineFixture b, ManualClock clock,
            int partitions) {
        for (int p = 0; p < partitions; p++) {
            a.collection("orders").insertOne(order("o" + p, "t" + p, "apple", 1, 1));
            a.defineView("revenue-t" + p, "t" + p, List.of("orders"), "revenue", REVENUE);
        }
        a.start();
        b.start();
        clock.advance(a.options.partitionLease().dividedBy(3));
        awaitLive(a, "node-a", "node-b");
        awaitLive(b, "node-a", "node-b");
        a.settle();
        b.settle();
    }

    private static void awaitLive(EngineFixture instance, String... live) {
        await().atMost(RecordingListener.WAIT)
            .until(() -> EngineProbe.liveInstances(instance.engine).equals(Set.of(live)));
    }

    private static String partitionOwnedBy(String owner, int partitions, String... live) {
        for (int p = 0; p < partitions; p++) {
            if (Rendezvous.owner("t" + p, List.of(live)).equals(owner)) {
                return "t" + p;
            }
        }
        throw new AssertionError(owner + " owns none of the " + partitions + " partitions");
    }

    @Test
    void oneStreamPerSourceCollectionWhateverTheNumberOfPartitionsAndViews(TestMongo mongo) {
        int partitions = 20;
        try (EngineFixture f = new EngineFixture(mongo)) {
            for (int p = 0; p < partitions; p++) {
                String tenant = "t" + p;
                f.collection("orders").insertOne(order("o" + p, tenant, "apple", 1, p));
                f.defineView("revenue-" + tenant, tenant, List.of("orders"), "revenue", REVENUE);
                f.defineView("count-" + tenant, tenant, List.of("orders"), "counts", "{\"$count\": \"_id\"}");
                f.defineView("by-customer-" + tenant, tenant, List.of("orders", "customers"), "byCustomer",
                        "{\"$lookup\": {\"from\": \"customers\", \"localField\": \"customer\", \"foreignField\": \"_id\", \"as\": \"c\"}}",
                        "{\"$group\": {\"_id\": \"$customer\", \"n\": {\"$sum\": 1}}}");
            }
            f.start();

            MaterializerSnapshot snapshot = f.engine.snapshot();
            assertThat(snapshot.state()).isEqualTo(EngineState.RUNNING);
            assertThat(snapshot.views()).hasSize(3 * partitions);
            // 2 sources (orders, customers) + the views collection, for 20 partitions x 3 views.
            assertThat(snapshot.openStreams()).isEqualTo(3);
            System.out.printf("streams opened for %d partitions x 3 views x 2 sources: %d%n", partitions,
                    snapshot.openStreams());
        }
    }

    @Test
    void theSummaryTheCountsAndThePagesOfViewsAgreeWithTheSnapshot(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            for (String tenant : List.of("globex", "acme")) {
                f.collection("orders").insertOne(order("o-" + tenant, tenant, "apple", 1, 1));
                f.defineView(tenant + "/revenue", tenant, List.of("orders"), "revenue", REVENUE);
                f.defineView(tenant + "/copy", tenant, List.of("orders"), "revenueCopy", REVENUE);
            }
            f.start();
            f.settle();

            MaterializerSnapshot snapshot = f.engine.snapshot();
            MaterializerSnapshot summary = f.engine.summary();
            assertThat(summary.views()).as("a summary visits no view").isEmpty();
            assertThat(summary.state()).isEqualTo(snapshot.state());
            assertThat(summary.openStreams()).isEqualTo(snapshot.openStreams());
            assertThat(f.engine.viewCounts()).containsEntry(ViewState.OK, 4);
            ViewPage acme = f.engine.views(new ViewQuery("acme", ViewState.OK, 0, 1));
            assertThat(acme.total()).isEqualTo(2);
            assertThat(acme.views()).extracting(ViewSnapshot::id).containsExactly("acme/copy");
            assertThat(f.engine.views(ViewQuery.first(10)).views()).extracting(ViewSnapshot::id)
                .containsExactly("acme/copy", "acme/revenue", "globex/copy", "globex/revenue");
        }
    }

    @Test
    void aBurstOfChangesWithinTheDebounceCostsOnePassPerPartition(TestMongo mongo) {
        int burst = 50;
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("seed", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.events.clear();
            for (int i = 0; i < burst; i++) {
                f.collection("orders").insertOne(order("b" + i, "acme", "apple", 1, 1));
            }
            f.events.awaitChanges(burst);
            f.settle();

            assertThat(f.events.passesOf("acme", "revenue")).hasSize(1);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", burst + 1));
            System.out.printf("passes of the partition for a burst of %d changes: %d%n", burst,
                    f.events.passesOf("acme", "revenue").size());
        }
    }

    @Test
    void stopIntakeAndDrainFinishTheWorkInFlightAndStartNone(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "apple", 1, 1));
            f.events.awaitChanges(1);
            f.engine.stopIntake();
            f.clock.advance(Duration.ofSeconds(5));

            assertThat(f.engine.drain(Duration.ofSeconds(10))).isTrue();
            assertThat(f.engine.inFlight()).isZero();
            assertThat(f.events.passes).as("no pass starts after stopIntake").isEmpty();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1));
        }
    }

    @Test
    void aRestartResumesFromItsCheckpointAndRunsOnlyWhatChanged(TestMongo mongo) {
        try (EngineFixture before = new EngineFixture(mongo)) {
            before.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "globex", "apple", 1, 1)));
            before.defineView("revenue-acme", "acme", List.of("orders"), "revenue", REVENUE);
            before.defineView("revenue-globex", "globex", List.of("orders"), "revenue", REVENUE);
            before.start();
            // An event while running, so the saved token is an event's own.
            before.collection("orders").insertOne(order("o0", "acme", "apple", 1, 0));
            before.events.awaitChanges(1);
            before.settle();
        }
        try (EngineFixture after = new EngineFixture(mongo)) {
            after.collection("orders").insertOne(order("o3", "acme", "pear", 1, 9));

            after.start();

            assertThat(after.rows("revenue-acme", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 9));
            assertThat(after.events.passesOf("globex", "revenue-globex")).as("untouched partition").isEmpty();
        }
    }

    @Test
    void aRestartThatRunsNothingShowsItsViewsOkAndFreshAsTheirStatusesSay(TestMongo mongo) throws InterruptedException {
        try (EngineFixture before = new EngineFixture(mongo)) {
            before.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            before.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            before.start();
            before.collection("orders").insertOne(order("o2", "acme", "apple", 1, 2));
            before.events.awaitChanges(1);
            before.settle();
        }
        try (EngineFixture after = new EngineFixture(mongo)) {
            after.start();
            after.settle();

            assertThat(after.events.passesOf("acme", "revenue")).as("nothing changed: nothing runs").isEmpty();
            assertThat(after.engine.snapshot().views()).extracting(ViewSnapshot::state).containsExactly(ViewState.OK);
            assertThat(after.engine.awaitFresh("acme", "revenue", Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void aStreamThatEndsReopensAfterRewatchAndItsViewsCatchUp(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            // A drop ends the stream (drop, then invalidate): it reopens from now after rewatch.
            f.collection("orders").drop();
            await().atMost(RecordingListener.WAIT).until(() -> !f.events.reopened.isEmpty());
            assertThat(f.engine.snapshot().reason()).as("said while it waits to reopen").contains("orders");
            f.collection("orders").insertOne(order("o2", "acme", "pear", 2, 2));
            f.settle();
            // The stream thread reopens on its own once the clock passed the rewatch; the pass that the
            // drop event marked may already have run, so wait for the reopening itself.
            await().atMost(RecordingListener.WAIT).until(() -> f.status("revenue").get("catchUp") != null);
            f.settle();

            assertThat(f.events.reopened.get(0)).startsWith("orders");
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("pear", "revenue", 4));
            assertThat(f.status("revenue").get("catchUp", Document.class).getString("reason"))
                .contains("orders").contains("started again from now");
            assertThat(f.engine.snapshot().openStreams()).isEqualTo(2);
        }
    }

    @Test
    void anUpdateTouchingNoneOfAViewsSourceFieldsDoesNotRunThatView(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.views().insertOne(new Document("_id", "revenue").append("_part", "acme").append("collections", List.of("orders"))
                .append("pipeline", List.of(Document.parse(REVENUE))).append("targetCollection", "revenue")
                .append("sourceFields", new Document("orders", List.of("product", "quantity", "price"))));
            f.defineView("notes", "acme", List.of("orders"), "notes", "{\"$project\": {\"note\": 1}}");
            f.start();

            f.events.clear();
            f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("note", "gift wrap"));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.events.passesOf("acme", "revenue")).as("revenue reads no 'note'").isEmpty();
            assertThat(f.rows("notes", "notes")).containsExactly(row("o1", "note", "gift wrap"));
        }
    }

    @Test
    void withPreImagesADeleteReachesOnlyTheViewsOfItsPartition(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.db.createCollection("orders", new com.mongodb.client.model.CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions(true)));
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 1),
                    order("o3", "globex", "apple", 1, 1)));
            f.defineView("revenue-acme", "acme", List.of("orders"), "revenue", REVENUE);
            f.defineView("revenue-globex", "globex", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.events.clear();
            f.collection("orders").deleteOne(Filters.eq("_id", "o2"));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.rows("revenue-acme", "revenue")).containsExactly(row("apple", "revenue", 1));
            assertThat(f.events.passesOf("globex", "revenue-globex")).as("the pre-image names acme").isEmpty();
        }
    }

    @Test
    void withPreImagesTurnedOnByTheEngineAKeyThatMovesAndADeleteAreRecomputedKeyByKey(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.enablePreImages(true))) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 2, 3), order("o2", "acme", "pear", 1, 5),
                    order("o3", "acme", "fig", 1, 1)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(dev.materializer.core.server.CapabilityDetector.preImages(f.db, "orders"))
                .as("the engine turned them on for the group-by view's source").isTrue();

            f.events.clear();
            f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("product", "pear"));
            f.events.awaitChanges(1);
            f.settle();
            assertThat(f.events.passesOf("acme", "revenue")).last().satisfies(report -> {
                assertThat(report.scope()).isEqualTo(dev.materializer.core.PassScope.KEYS);
                assertThat(report.scopeNote()).isEqualTo("2 keys of product");
            });
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("fig", "revenue", 1), row("pear", "revenue", 11));

            f.collection("orders").deleteOne(Filters.eq("_id", "o3"));
            f.events.awaitChanges(2);
            f.settle();
            assertThat(f.events.passesOf("acme", "revenue")).last().satisfies(report -> {
                assertThat(report.scope()).isEqualTo(dev.materializer.core.PassScope.KEYS);
                assertThat(report.scopeNote()).isEqualTo("1 key of product");
            });
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("pear", "revenue", 11));
        }
    }

    @Test
    void anUpdateThatKeepsItsKeyRecomputesOnlyThatKey(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 2, 3), order("o2", "acme", "pear", 1, 5)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.events.clear();
            f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("quantity", 4));
            f.events.awaitChanges(1);
            f.settle();

            // The update description says the key field did not change: the post-image's key is the old one too
            assertTheLastPassRecomputedOneProduct(f);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 12), row("pear", "revenue", 5));
        }
    }

    @Test
    void withPreImagesADocumentThatMovesToAnotherTenantLeavesTheViewOfTheOldOne(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.db.createCollection("orders", new com.mongodb.client.model.CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions(true)));
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 2, 3), order("o2", "acme", "pear", 1, 5),
                    order("o3", "globex", "fig", 1, 1)));
            f.defineView("revenue-acme", "acme", List.of("orders"), "revenue", REVENUE);
            f.defineView("revenue-globex", "globex", List.of("orders"), "revenue", REVENUE);
            f.defineView("revenue-initech", "initech", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.events.clear();
            f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("_part", "globex"));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.rows("revenue-acme", "revenue")).as("the pre-image names acme").containsExactly(row("pear", "revenue", 5));
            assertThat(f.rows("revenue-globex", "revenue")).containsExactly(row("apple", "revenue", 6), row("fig", "revenue", 1));
            assertThat(f.events.passesOf("initech", "revenue-initech")).as("neither image names initech").isEmpty();
        }
    }

    @Test
    void aChangeOfAJoinedDocumentRecomputesOnlyTheRowsThatJoinIt(TestMongo mongo) {
        String join = "{\"$lookup\": {\"from\": \"customers\", \"localField\": \"customer\", \"foreignField\": \"_id\", \"as\": \"c\"}}";
        String name = "{\"$project\": {\"name\": {\"$arrayElemAt\": [\"$c.name\", 0]}}}";
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 1)));
            f.collection("customers").insertMany(List.of(new Document("_id", "c-o1").append("_part", "acme").append("name", "Ann"),
                    new Document("_id", "c-o2").append("_part", "acme").append("name", "Bo")));
            f.defineView("names", "acme", List.of("orders", "customers"), "names", join, name);
            f.start();
            assertThat(f.rows("names", "names")).as(f.status("names").toJson())
                .containsExactly(row("o1", "name", "Ann"), row("o2", "name", "Bo"));

            f.events.clear();
            f.collection("customers").updateOne(Filters.eq("_id", "c-o2"), Updates.set("name", "Bob"));
            f.events.awaitChanges(1);
            f.settle();

            // The key query finds the orders that join c-o2; the guard's $lookup (fields and a pipeline) runs restricted to them
            assertThat(f.events.passesOf("acme", "names")).last().satisfies(report -> {
                assertThat(report.scope()).as(String.valueOf(report.scopeNote())).isEqualTo(dev.materializer.core.PassScope.KEYS);
                assertThat(report.rowsWritten()).isEqualTo(1);
            });
            assertThat(f.rows("names", "names")).containsExactly(row("o1", "name", "Ann"), row("o2", "name", "Bob"));
        }
    }

    @Test
    void whereTheServerRefusesPreImagesTheEngineRunsOnAndADeleteRunsWhole(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.enablePreImages(true))) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 2, 3), order("o2", "acme", "pear", 1, 5)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            boolean kept = dev.materializer.core.server.CapabilityDetector.preImages(f.db, "orders");

            f.events.clear();
            f.collection("orders").deleteOne(Filters.eq("_id", "o1"));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.rows("revenue", "revenue")).containsExactly(row("pear", "revenue", 5));
            assertThat(f.events.passesOf("acme", "revenue")).last().satisfies(report -> assertThat(report.scope())
                .as("with pre-images the delete names its key, without them it runs whole")
                .isEqualTo(kept ? dev.materializer.core.PassScope.KEYS : dev.materializer.core.PassScope.FULL));
        }
    }

    @Test
    @RequiresCapability(Capability.TRANSACTIONS)
    void onAReplicaSetASmallViewIsWrittenInOneTransactionInItsCurrentGeneration(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            Object generation = f.status("revenue").get("generation");

            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.events.passesOf("acme", "revenue")).anySatisfy(report -> {
                assertThat(report.mode().name()).isEqualTo("TRANSACTION");
                assertThat(report.rowsWritten()).isEqualTo(1);
            });
            assertThat(f.status("revenue").get("generation")).as("same generation").isEqualTo(generation);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 5));
        }
    }

    @Test
    void afterDropDatabaseTheStreamsReopenAndNewViewsRun(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.db.drop();
            await().atMost(RecordingListener.WAIT).until(() -> f.events.reopened.stream().anyMatch(line -> line.startsWith("orders")));
            f.settle();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 2, 2));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.awaitStatus("revenue", "ok");
            f.settle();

            assertThat(f.rows("revenue", "revenue")).containsExactly(row("pear", "revenue", 4));
        }
    }

    @Test
    void theEngineIndexesItsOwnCollectionsForTheReadsItMakes(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            List<Document> viewIndexes = f.views().listIndexes().into(new ArrayList<>());
            assertThat(viewIndexes).extracting(index -> index.get("key", Document.class))
                .contains(new Document(f.options.partitionField(), 1));
            List<Document> checkpointIndexes = f.db.getCollection(f.options.checkpointsCollection()).listIndexes()
                .into(new ArrayList<>());
            assertThat(checkpointIndexes).extracting(index -> index.get("key", Document.class))
                .contains(new Document("kind", 1).append("collection", 1));
        }
    }

    @Test
    void aSourceWithoutAnIndexLeadingWithThePartitionFieldIsNamedOnceWhenItsStreamOpens(TestMongo mongo) {
        try (CapturedLog logged = CapturedLog.of(SourceIndexes.class); EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.collection("customers").insertOne(new Document("_id", "c1").append("_part", "acme"));
            f.collection("customers").createIndex(Indexes.ascending("_part"));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.defineView("people", "acme", List.of("customers"), "people", "{\"$project\": {\"_id\": 1}}");
            f.defineView("revenue-globex", "globex", List.of("orders"), "revenue", REVENUE);
            f.start();

            assertThat(logged.events()).extracting(ILoggingEvent::getFormattedMessage)
                .as("orders, once for its stream; not customers, indexed")
                .singleElement().asString().startsWith("Source orders has no index that starts with the partition field");
        }
    }

    @Test
    void theSnapshotListsEveryViewWithItsState(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            assertThat(f.engine.view("acme", "revenue")).hasValueSatisfying(view -> {
                assertThat(view.state()).isEqualTo(ViewState.OK);
                assertThat(view.sources()).containsExactly("orders");
                assertThat(view.target()).isEqualTo("revenue");
                assertThat(view.generation()).isNotNull();
                assertThat(view.lastRun()).isNotNull();
            });
        }
    }

    @Test
    void aRefreshRunsOneViewNow(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            PassReport report = f.engine.refresh("acme", "revenue").get();

            assertThat(report.outcome()).isEqualTo(PassOutcome.UNCHANGED);
            assertThat(f.engine.refresh("acme", "nope")).failsWithin(Duration.ofSeconds(5))
                .withThrowableThat().withMessageContaining("nope");
        }
    }

    @Test
    void refreshesAndVerifiesQueuedBehindARunningPassEndWhenTheEngineCloses(TestMongo mongo) throws Exception {
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        AtomicBoolean hold = new AtomicBoolean();
        // The listener is called on the pass thread: holding it there holds the partition's lane.
        dev.materializer.core.MaterializerListener holding = new dev.materializer.core.MaterializerListener() {
            @Override
            public void onPassStarted(dev.materializer.core.ViewKey view) {
                if (hold.getAndSet(false)) {
                    running.countDown();
                    try {
                        release.await(RecordingListener.WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.listener(holding))) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            hold.set(true);
            var first = f.engine.refresh("acme", "revenue");
            assertThat(running.await(RecordingListener.WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            var queuedRefresh = f.engine.refresh("acme", "revenue");
            var queuedVerify = f.engine.verify("acme", "revenue");

            f.engine.close();

            try {
                assertThat(queuedRefresh).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                    .havingCause().isInstanceOf(dev.materializer.core.EngineClosedException.class)
                    .withMessageContaining("closed");
                assertThat(queuedVerify).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                    .havingCause().isInstanceOf(dev.materializer.core.EngineClosedException.class);
                assertThat(f.engine.refresh("acme", "revenue")).as("asked after the close")
                    .failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                    .havingCause().isInstanceOf(dev.materializer.core.EngineClosedException.class);
            }
            finally {
                release.countDown();
            }
            assertThat(first).as("the pass running at the close finishes").succeedsWithin(RecordingListener.WAIT);
        }
    }
}
