package dev.materializer.core.engine;

import java.util.List;
import java.util.concurrent.TimeUnit;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.VerifyReport;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerScenarios.REVENUE;
import static dev.materializer.core.engine.MaterializerScenarios.order;
import static dev.materializer.core.engine.MaterializerScenarios.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What happens to the views over a view's target, and to the view's rows, when the view goes:
 * deleted, given another target, moved to another tenant, made invalid. Each ends with the sources
 * quiet and asserts that what a reader sees equals a fresh run of the pipeline.
 */
abstract class ViewLifecycleScenarios {

    /** Reads the rows of the view writing "revenue", re-keyed by their own id. */
    static final String COPY = "{\"$project\": {\"_id\": \"$_id.id\", \"revenue\": 1}}";

    @Test
    void deletingAnUpstreamViewRerunsTheViewsReadingItsTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);

            f.views().deleteOne(Filters.eq("_id", "revenue"));
            awaitGone(f, "acme", "revenue");
            f.settle();

            assertThat(f.rows("copy", "copy")).as("the target of no view holds nothing the copy reads").isEmpty();
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void givingAnUpstreamViewAnotherTargetRerunsTheViewsReadingItsOldTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);

            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("targetCollection", "revenue2"));
            await().atMost(RecordingListener.WAIT).until(() -> f.engine.view("acme", "revenue")
                .map(view -> view.target().equals("revenue2")).orElse(false));
            f.settle();

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
            awaitGone(f, "acme", "revenue");
            f.settle();

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
            await().atMost(RecordingListener.WAIT).until(() -> f.engine.view("acme", "revenue")
                .map(view -> view.state().equals("errored")).orElse(false));
            f.settle();

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
            await().atMost(RecordingListener.WAIT).until(() -> f.engine.view("acme", "revenue")
                .map(view -> view.state().equals("errored")).orElse(false));
            f.settle();

            assertThat(f.rows("copy", "copy")).isEmpty();
            assertInSync(f, "acme", "copy");

            f.views().deleteOne(Filters.eq("_id", "revenue"));
            awaitGone(f, "acme", "revenue");
            f.settle();
            assertInSync(f, "acme", "copy");
        }
    }

    @Test
    void deletingAnInvalidUpstreamViewRerunsTheViewsReadingItsTarget(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            upstreamAndCopy(f);
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("pipeline", List.of(new Document("notAStage", 1))));
            await().atMost(RecordingListener.WAIT).until(() -> f.engine.view("acme", "revenue")
                .map(view -> view.state().equals("errored")).orElse(false));
            f.settle();

            f.views().deleteOne(Filters.eq("_id", "revenue"));
            awaitGone(f, "acme", "revenue");
            f.settle();

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
            await().atMost(RecordingListener.WAIT).until(() -> "ok".equals(f.status("revenue").getString("state")));
            f.settle();

            assertThat(f.rows("copy", "copy")).containsExactly(row("apple", "revenue", 6));
            assertInSync(f, "acme", "copy");
        }
    }

    /** A view of acme's revenue, and a view copying its rows, both run. */
    static void upstreamAndCopy(EngineFixture f) {
        f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
        f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
        f.defineView("copy", "acme", List.of("revenue"), "copy", COPY);
        f.start();
        assertThat(f.rows("copy", "copy")).containsExactly(row("apple", "revenue", 6));
    }

    static void awaitGone(EngineFixture f, String partition, String id) {
        await().atMost(RecordingListener.WAIT).until(() -> f.engine.view(partition, id).isEmpty());
    }

    /** The view's rows equal a fresh run of its pipeline. */
    static void assertInSync(EngineFixture f, String partition, String id) throws Exception {
        VerifyReport report = f.engine.verify(partition, id).get(20, TimeUnit.SECONDS);
        assertThat(report.inSync()).as("%s equals a fresh run of its pipeline: %s", id, report).isTrue();
    }
}
