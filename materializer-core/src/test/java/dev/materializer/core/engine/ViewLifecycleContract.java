package dev.materializer.core.engine;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.cluster.Rendezvous;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.REVENUE;
import static dev.materializer.core.engine.MaterializerContract.order;
import static dev.materializer.core.engine.MaterializerContract.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What happens to the views over a view's target, and to the view's rows, when the view goes:
 * deleted, given another target, moved to another tenant, made invalid. Each ends with the sources
 * quiet and asserts that what a reader sees equals a fresh run of the pipeline.
 */
abstract class ViewLifecycleContract {

    /** Reads the rows of the view writing "revenue", re-keyed by their own id. */
    static final String COPY = "{\"$project\": {\"_id\": \"$_id.id\", \"revenue\": 1}}";

    /** Orders per customer: rows that look nothing like revenue's. */
    static final String COUNTS = "{\"$group\": {\"_id\": \"$customer\", \"n\": {\"$sum\": 1}}}";

    @Test
    void deletingAnUpstreamViewRerunsTheViewsReadingItsTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);

            f.views().deleteOne(Filters.eq("_id", "revenue"));
            heard(f);

            assertThat(f.rows("copy", "copy")).as("the target of no view holds nothing the copy reads").isEmpty();
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void givingAnUpstreamViewAnotherTargetRerunsTheViewsReadingItsOldTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);

            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("targetCollection", "revenue2"));
            heard(f);

            assertThat(f.rows("revenue", "revenue2")).containsExactly(row("apple", "revenue", 6));
            assertThat(f.rows("copy", "copy")).as("nothing writes 'revenue' for acme any more").isEmpty();
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void movingAnUpstreamViewToAnotherTenantRerunsTheOldTenantsViewsReadingItsTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("g1", "globex", "fig", 1, 7));
            upstreamAndCopy(f);

            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("_part", "globex"));
            heard(f);

            assertThat(f.rows("revenue", "revenue")).containsExactly(row("fig", "revenue", 7));
            assertThat(f.rows("copy", "copy")).as("acme's 'revenue' has no view any more").isEmpty();
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void anUpstreamViewMadeInvalidKeepsItsLastRowsForTheViewsReadingItsTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);

            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("pipeline", List.of(new Document("notAStage", 1))));
            heard(f);

            assertThat(f.rows("copy", "copy")).as("an errored view's last generation stays, as it stays for its readers")
                .containsExactly(row("apple", "revenue", 6));
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void anUpstreamViewGivenAnInvalidTargetLeavesItsOldTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);

            // A view may not write one of its own sources: invalid, and no longer naming 'revenue'
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("targetCollection", "orders"));
            heard(f);

            assertThat(f.rows("copy", "copy")).isEmpty();
            assertInSync(f, "acme", "copy");

            f.views().deleteOne(Filters.eq("_id", "revenue"));
            heard(f);
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void deletingAnInvalidUpstreamViewRerunsTheViewsReadingItsTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("pipeline", List.of(new Document("notAStage", 1))));
            heard(f);

            f.views().deleteOne(Filters.eq("_id", "revenue"));
            heard(f);

            assertThat(f.rows("copy", "copy")).isEmpty();
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void aViewAddedWhoseTargetOtherViewsReadMakesThemRun(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("copy", "acme", List.of("revenue"), "copy", COPY);
            f.start();
            assertThat(f.rows("copy", "copy")).isEmpty();

            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            heard(f);

            assertThat(f.rows("copy", "copy")).containsExactly(row("apple", "revenue", 6));
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void aViewGivenTheTargetAnotherViewHoldsIsRefusedAndTheViewsReadingThatTargetSeeTheHolder(TestMongo mongo)
            throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.defineView("counts", "acme", List.of("orders"), "counts", COUNTS);
            upstreamAndCopy(f);
            assertThat(f.rows("counts", "counts")).containsExactly(row("c-o1", "n", 1));

            // A view with a generation of its own, in another target, moves into the one 'revenue' holds
            f.views().updateOne(Filters.eq("_id", "counts"), Updates.set("targetCollection", "revenue"));
            heard(f);

            assertThat(f.status("counts").getString("lastError")).contains("view 'revenue'");
            assertThat(f.rows("counts", "revenue")).as("its readers read nothing: its generation names rows elsewhere")
                .isEmpty();
            assertThat(f.rows("copy", "copy")).as("the copy reads the holder's generation")
                .containsExactly(row("apple", "revenue", 6));
            assertInSync(f, "acme", "copy");

            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.events.awaitChanges(1);
            f.settle();
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
            assertThat(f.rows("copy", "copy")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
            assertThat(f.db.getCollection("revenue").countDocuments(Filters.exists("n"))).isZero();
        }
    }

    @Test
    void aViewGivenATargetAnotherViewJustLeftNeverShowsThatViewsRows(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            // Fig orders per customer: none yet, so its generation stays at its first while revenue's grows
            f.defineView("counts", "acme", List.of("orders"), "counts", "{\"$match\": {\"product\": \"fig\"}}", COUNTS);
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            f.events.clear();
            for (int more = 2; more <= 5; more++) {
                f.collection("orders").insertOne(order("o" + more, "acme", "kiwi", 1, more));
                f.events.awaitChanges(more - 1);
                f.clock.advance(EngineFixture.DEBOUNCE);
                f.drain();
            }
            // 'revenue' wrote generations numbered up to 5; 'counts' is at a lower number of its own
            f.views().deleteOne(Filters.eq("_id", "revenue"));
            f.views().updateOne(Filters.eq("_id", "counts"), Updates.set("targetCollection", "revenue"));
            heard(f);
            assertThat(f.status("counts").getString("state")).isEqualTo("ok");

            for (int more = 6; more <= 9; more++) {
                f.collection("orders").insertOne(order("o" + more, "acme", "fig", 1, more));
                f.events.awaitChanges(more - 1);
                f.clock.advance(EngineFixture.DEBOUNCE);
                f.drain();
                assertInSync(f, "acme", "counts");
            }
            assertThat(f.db.getCollection("revenue").countDocuments(Filters.exists("revenue")))
                .as("no version the deleted view wrote is left for a later generation of the newcomer to show").isZero();
        }
    }

    @Test
    void aNewViewWritingATargetAnotherViewJustLeftNeverShowsThatViewsRows(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            // The rows 'revenue' left in its target stay for the grace; a new view there numbers from 1
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("targetCollection", "revenue2"));
            heard(f);
            f.defineView("counts", "acme", List.of("orders"), "revenue", COUNTS);
            heard(f);

            assertThat(f.rows("counts", "revenue")).containsExactly(new Document("id", "c-o1").append("n", 1));
            assertInSync(f, "acme", "counts");
        }
    }

    @Test
    void theInstanceThatTakesAPartitionOverKeepsTheHolderRunningAndTheNewcomerRefused(TestMongo mongo) {
        int tenants = 10;
        try (EngineFixture a = new EngineFixture(mongo, builder -> builder.instanceId("node-a"));
                EngineFixture b = new EngineFixture(mongo, builder -> builder.instanceId("node-b"))) {
            for (int p = 0; p < tenants; p++) {
                a.collection("orders").insertOne(order("o" + p, "t" + p, "apple", 1, 1));
                a.defineView("revenue-t" + p, "t" + p, List.of("orders"), "revenue", REVENUE);
            }
            a.start();
            b.start();
            a.clock.advance(a.options.partitionLease().dividedBy(3));
            await().atMost(RecordingListener.WAIT).until(() -> EngineProbe.liveInstances(a.engine)
                .equals(Set.of("node-a", "node-b")) && EngineProbe.liveInstances(b.engine).equals(Set.of("node-a", "node-b")));
            String tenant = java.util.stream.IntStream.range(0, tenants).mapToObj(p -> "t" + p)
                .filter(t -> Rendezvous.owner(t, List.of("node-a", "node-b")).equals("node-a")).findFirst().orElseThrow();

            a.defineView("dup-" + tenant, tenant, List.of("orders"), "revenue", COUNTS);
            a.awaitStatus("dup-" + tenant, "errored");
            a.settle();
            b.settle();

            a.close();
            a.collection("orders").insertOne(order("late", tenant, "fig", 2, 5));
            await().atMost(RecordingListener.WAIT).untilAsserted(() -> {
                b.clock.advance(b.options.partitionLease().dividedBy(3));
                b.drain();
                assertThat(b.rows("revenue-" + tenant, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 10));
            });
            b.settle();
            assertThat(b.status("revenue-" + tenant).getString("state")).isEqualTo("ok");
            assertThat(b.status("dup-" + tenant).getString("state")).isEqualTo("errored");
            assertThat(b.status("dup-" + tenant).getString("lastError")).contains("view 'revenue-" + tenant + "'");
        }
    }

    @Test
    void aViewMovedToAnotherTenantWhileNoEngineRanRunsThereAtTheStartAndItsOldTenantsReadersRunToo(TestMongo mongo)
            throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("g1", "globex", "fig", 1, 7));
            upstreamAndCopy(f);
        }
        try (EngineFixture down = new EngineFixture(mongo)) {
            down.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("_part", "globex"));
        }
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.start();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("fig", "revenue", 7));
            assertThat(f.rows("copy", "copy")).isEmpty();
            assertInSync(f, "acme", "copy");
            assertInSync(f, "globex", "revenue");
        }
    }

    @Test
    void anUpstreamViewDeletedWhileNoEngineRanMakesItsReadersRunAtTheStartAndItsRowsGoAfterTheGrace(TestMongo mongo)
            throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);
        }
        mongo.database().getCollection("_aggregations").deleteOne(Filters.eq("_id", "revenue"));
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.start();
            assertThat(f.rows("copy", "copy")).as("the target of no view holds nothing the copy reads").isEmpty();
            assertInSync(f, "acme", "copy");
            assertLeftRowsGoAfterTheGrace(f, "revenue", "acme");
            assertThat(f.status("copy").get("reads")).as("it reads no other view's target any more: the next start"
                    + " has nothing to find").isNull();
        }
    }

    @Test
    void aViewMovedToAnotherTenantLeavesNoVersionOfItsOldTenantOnceTheGraceHasPassed(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("g1", "globex", "fig", 1, 7));
            twoGenerationsOfRevenue(f);

            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("_part", "globex"));
            heard(f);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("fig", "revenue", 7));
            assertLeftRowsGoAfterTheGrace(f, "revenue", "acme");
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("fig", "revenue", 7));
        }
    }

    @Test
    void aViewDeletedOrGivenAnotherTargetLeavesNoVersionInItsOldTargetOnceTheGraceHasPassed(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            twoGenerationsOfRevenue(f);
            f.collection("orders").insertOne(order("g1", "globex", "fig", 1, 7));
            f.defineView("revenue-globex", "globex", List.of("orders"), "revenue", REVENUE);
            heard(f);

            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("targetCollection", "revenue2"));
            f.views().deleteOne(Filters.eq("_id", "revenue-globex"));
            heard(f);
            assertThat(f.rows("revenue", "revenue2")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
            assertLeftRowsGoAfterTheGrace(f, "revenue", "acme", "globex");
            assertThat(f.rows("revenue", "revenue2")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
        }
    }

    @Test
    void theRowsAViewLeftGoAfterTheGraceThoughTheEngineRestartedWithinIt(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            twoGenerationsOfRevenue(f);
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("targetCollection", "revenue2"));
            heard(f);
            assertThat(versions(f, "revenue", "acme")).as("within the grace").isPositive();
        }
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.start();
            // A new engine's clock starts where the first one's did: past the first one's time of the departure too
            f.clock.advance(f.options.generationGrace().plusMinutes(1));
            f.settle();
            assertThat(versions(f, "revenue", "acme")).as("after the grace, removed by the engine that started again")
                .isZero();
            assertThat(f.rows("revenue", "revenue2")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
        }
    }

    @Test
    void aViewPutBackWithinTheGraceKeepsItsRows(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            twoGenerationsOfRevenue(f);
            Document saved = f.viewDocument("revenue");

            f.views().deleteOne(Filters.eq("_id", "revenue"));
            heard(f);
            f.views().insertOne(saved);
            heard(f);
            f.clock.advance(f.options.generationGrace());
            f.settle();

            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
            assertInSync(f, "acme", "revenue");
        }
    }

    /** A view of acme's revenue, and a view copying its rows, both run. */
    /** Acme's revenue, run twice, so its target holds superseded versions as well as current ones. */
    static void twoGenerationsOfRevenue(EngineFixture f) {
        f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
        f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
        f.start();
        f.events.clear();
        f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
        f.events.awaitChanges(1);
        f.settle();
        assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
    }

    /**
     * The row versions of the partitions in the target stay while a reader of the left view's last
     * generation may still read them, and are gone once {@code generation-grace} has passed since
     * the engine heard the view leave (the engine's clock: heard() moved it a few seconds already).
     */
    static void assertLeftRowsGoAfterTheGrace(EngineFixture f, String target, String... partitions) {
        for (String partition : partitions) {
            assertThat(versions(f, target, partition)).as("%s's versions within the grace", partition).isPositive();
        }
        f.clock.advance(f.options.generationGrace().minusSeconds(10));
        f.drain();
        for (String partition : partitions) {
            assertThat(versions(f, target, partition)).as("%s's versions, 10 s before the grace ends", partition)
                .isPositive();
        }
        f.clock.advance(Duration.ofSeconds(10));
        f.drain();
        for (String partition : partitions) {
            assertThat(versions(f, target, partition)).as("%s's versions after the grace", partition).isZero();
        }
    }

    static long versions(EngineFixture f, String target, String partition) {
        return f.db.getCollection(target).countDocuments(Filters.and(Filters.eq(f.options.partitionField(), partition),
                Filters.exists(dev.materializer.core.ViewFilter.TO_FIELD)));
    }

    static void upstreamAndCopy(EngineFixture f) {
        f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
        f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
        f.defineView("copy", "acme", List.of("revenue"), "copy", COPY);
        f.start();
        assertThat(f.rows("copy", "copy")).containsExactly(row("apple", "revenue", 6));
        assertThat(f.status("copy").getList("reads", String.class)).as("the targets of other views it read")
            .containsExactly("revenue");
    }

    /**
     * Waits until the engine has heard every change of the views made before, then for the work
     * they queued: the views stream hears changes in order, so once it has heard a document added
     * after them (one that cannot run, so it queues nothing), their work is queued.
     */
    static void heard(EngineFixture f) {
        String id = "heard-" + new org.bson.types.ObjectId().toHexString();
        f.views().insertOne(new Document("_id", id).append(f.options.partitionField(), "zz-heard"));
        await().atMost(RecordingListener.WAIT).until(() -> f.engine.view("zz-heard", id).isPresent());
        f.settle();
    }

    /** The view's rows equal a fresh run of its pipeline. */
    static void assertInSync(EngineFixture f, String partition, String id) throws Exception {
        VerifyReport report = f.engine.verify(partition, id).get(20, TimeUnit.SECONDS);
        assertThat(report.inSync()).as("%s equals a fresh run of its pipeline: %s", id, report).isTrue();
    }
}
