package dev.materializer.core.convergence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.engine.ViewMaterializer;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewFilter;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The checker itself: rows laid out by hand as the engine stores them, so what it reports does not
 * hang on the engine being right; and once on rows an engine wrote, so the layout is the real one.
 */
@MongoTest(MongoKind.IN_PROCESS)
class ConvergenceCheckerTest {

    private static final MaterializerOptions OPTIONS = MaterializerOptions.defaults();

    private static final String REVENUE = "{$group: {_id: '$product', revenue: {$sum: '$price'}}}";

    @Test
    void rowsEqualToAFreshRunAreNotReportedButRowsWithTheirKeysInAnotherOrderAre(TestMongo mongo) {
        // Field order counts, as MongoDB compares documents and as the engine keeps the pipeline's order.
        MongoDatabase db = mongo.database();
        orders(db);
        ObjectId generation = okView(db, "revenue", "acme", "orders", "revenue",
                "{$group: {_id: '$product', revenue: {$sum: '$price'}, n: {$sum: 1}}}");
        // The fresh run gives {revenue, n}: apple is stored so, pear with its keys the other way round.
        storeRow(db, "revenue", "acme", generation, "apple", new Document("revenue", 5).append("n", 2));
        storeRow(db, "revenue", "acme", generation, "pear", new Document("n", 1).append("revenue", 7));

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.divergences()).singleElement().satisfies(divergence -> {
            assertThat(divergence.view()).isEqualTo("acme/revenue");
            assertThat(divergence.missing()).containsExactly(Document.parse("{_id: 'pear', revenue: 7, n: 1}").toBsonDocument());
            assertThat(divergence.extra()).containsExactly(Document.parse("{_id: 'pear', n: 1, revenue: 7}").toBsonDocument());
        });
        assertThat(report.unchecked()).isEmpty();
    }

    @Test
    void aCorruptedRowIsReportedAsMissingAndExtra(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        orders(db);
        ObjectId generation = okView(db, "revenue", "acme", "orders", "revenue", REVENUE);
        storeRow(db, "revenue", "acme", generation, "apple", new Document("revenue", 5));
        storeRow(db, "revenue", "acme", generation, "pear", new Document("revenue", 999));

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.divergences()).singleElement().satisfies(divergence -> {
            assertThat(divergence.view()).isEqualTo("acme/revenue");
            assertThat(divergence.missing()).containsExactly(Document.parse("{_id: 'pear', revenue: 7}").toBsonDocument());
            assertThat(divergence.extra()).containsExactly(Document.parse("{_id: 'pear', revenue: 999}").toBsonDocument());
        });
        assertThat(report.describe()).contains("acme/revenue", "999");
    }

    @Test
    void typesCountAndRowsOfOtherGenerationsAndPartitionsDoNot(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        orders(db);
        ObjectId generation = okView(db, "revenue", "acme", "orders", "revenue", REVENUE);
        storeRow(db, "revenue", "acme", generation, "apple", new Document("revenue", 5));
        // A long 7 is not the int 7 of the fresh run.
        storeRow(db, "revenue", "acme", generation, "pear", new Document("revenue", 7L));
        // Neither the previous generation nor another partition is the view's.
        storeRow(db, "revenue", "acme", new ObjectId(), "fig", new Document("revenue", 1));
        storeRow(db, "revenue", "globex", generation, "fig", new Document("revenue", 1));

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.divergences()).singleElement().satisfies(divergence -> {
            assertThat(divergence.missing()).containsExactly(Document.parse("{_id: 'pear', revenue: 7}").toBsonDocument());
            assertThat(divergence.extra()).containsExactly(
                    Document.parse("{_id: 'pear', revenue: {$numberLong: '7'}}").toBsonDocument());
        });
    }

    @Test
    void aMissingRowAndADuplicateRowAreCountedAsAMultiset(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        orders(db);
        ObjectId generation = okView(db, "names", "acme", "orders", "names", "{$project: {_id: 0, product: 1}}",
                "{$addFields: {_id: 'same'}}");
        // The fresh run has three rows of one id: apple twice, pear once. The view has apple twice
        // (two stored rows whose _id.id is the same) and no pear.
        storeRow(db, "names", "acme", generation, "same", new Document("product", "apple"));
        db.getCollection("names").insertOne(new Document("_id", new Document("partition", "acme")
            .append("generation", generation).append("id", "same").append("copy", 2)).append("product", "apple")
            .append("_part", "acme").append(ViewFilter.GENERATION_FIELD, generation).append(ViewFilter.HASH_FIELD, "h"));

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.divergences()).singleElement().satisfies(divergence -> {
            assertThat(divergence.missing()).containsExactly(Document.parse("{_id: 'same', product: 'pear'}").toBsonDocument());
            assertThat(divergence.extra()).isEmpty();
        });
    }

    @Test
    void aViewOverAnotherViewsTargetReadsItsCurrentGenerationOnly(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        orders(db);
        ObjectId revenue = okView(db, "revenue", "acme", "orders", "revenue", REVENUE);
        storeRow(db, "revenue", "acme", revenue, "apple", new Document("revenue", 5));
        storeRow(db, "revenue", "acme", revenue, "pear", new Document("revenue", 7));
        // An old generation of the upstream view: a scoped read must not see it.
        storeRow(db, "revenue", "acme", new ObjectId(), "fig", new Document("revenue", 100));
        ObjectId top = okView(db, "top", "acme", "revenue", "top", "{$project: {_id: '$_id.id', revenue: 1}}",
                "{$sort: {revenue: -1}}", "{$limit: 1}");
        storeRow(db, "top", "acme", top, "pear", new Document("revenue", 7));

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.hasNoDivergence()).as(report.describe()).isTrue();
        assertThat(report.converged()).containsExactlyInAnyOrder("acme/revenue", "acme/top");
    }

    @Test
    void aViewOverAnotherViewsTargetReadsTheGenerationOfTheViewThatHoldsIt(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        orders(db);
        ObjectId revenue = okView(db, "revenue", "acme", "orders", "revenue", REVENUE);
        storeRow(db, "revenue", "acme", revenue, "apple", new Document("revenue", 5));
        storeRow(db, "revenue", "acme", revenue, "pear", new Document("revenue", 7));
        ObjectId elsewhere = new ObjectId();
        storeRow(db, "revenue", "acme", elsewhere, "fig", new Document("revenue", 100));
        // A view given the target 'revenue' later, refused: its generation was written in another target
        db.getCollection(OPTIONS.viewsCollection()).insertOne(view("newcomer", "acme", "orders", "revenue", REVENUE)
            .append(OPTIONS.statusField(), new Document("state", "errored").append("generation", elsewhere)
                .append("target", new Document("collection", "other").append("partition", "acme"))));
        ObjectId top = okView(db, "top", "acme", "revenue", "top", "{$project: {_id: '$_id.id', revenue: 1}}",
                "{$sort: {revenue: -1}}", "{$limit: 1}");
        storeRow(db, "top", "acme", top, "pear", new Document("revenue", 7));

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.hasNoDivergence()).as(report.describe()).isTrue();
        assertThat(report.converged()).containsExactlyInAnyOrder("acme/revenue", "acme/top");
    }

    @Test
    void viewsThatAreNotOkAreListedWithWhyAndIdsThatReadAlikeStayApart(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        orders(db);
        MongoCollection<Document> views = db.getCollection(OPTIONS.viewsCollection());
        views.insertOne(view("broken", "acme", "orders", "t", REVENUE)
            .append(OPTIONS.statusField(), new Document("state", "errored").append("lastError", "collections must ...")));
        views.insertOne(view("looped", "acme", "orders", "t2", REVENUE)
            .append(OPTIONS.statusField(), new Document("state", "cycle")));
        views.insertOne(view("1", "acme", "orders", "t3", REVENUE));
        views.insertOne(view(1, "acme", "orders", "t4", REVENUE));

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.divergences()).isEmpty();
        assertThat(report.converged()).isEmpty();
        assertThat(report.uncheckedViews()).containsExactlyInAnyOrder("acme/broken", "acme/looped", "acme/\"1\"",
                "acme/1 (int32)");
        assertThat(report.describe()).contains("errored: collections must", "cycle", "never run");
    }

    @Test
    void anOkViewWithoutRowsOfItsGenerationIsMissingEveryRow(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        orders(db);
        okView(db, "revenue", "acme", "orders", "revenue", REVENUE);

        ConvergenceReport report = new ConvergenceChecker(db, OPTIONS).check();

        assertThat(report.divergences()).singleElement()
            .satisfies(divergence -> assertThat(divergence.missing()).hasSize(2));
    }

    @Test
    void onRowsAnEngineWroteNothingDivergesUntilARowIsChanged(TestMongo mongo) throws Exception {
        MongoDatabase db = mongo.database();
        orders(db);
        db.getCollection(OPTIONS.viewsCollection()).insertMany(List.of(view("revenue", "acme", "orders", "revenue", REVENUE),
                view("top", "acme", "revenue", "top", "{$project: {_id: '$_id.id', revenue: 1}}",
                        "{$sort: {revenue: -1}}", "{$limit: 1}")));
        ManualClock clock = new ManualClock();
        MaterializerOptions options = OPTIONS.toBuilder().clock(clock).build();
        ViewMaterializer engine = new ViewMaterializer(mongo.client(), db.getName(), options);
        try {
            engine.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.snapshot().state() == EngineState.RUNNING);
            ConvergenceChecker checker = new ConvergenceChecker(db, options);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                clock.advance(Duration.ofSeconds(1));
                engine.drain(Duration.ofSeconds(5));
                return checker.check().converged().size() == 2;
            });
        }
        finally {
            engine.close();
        }
        ConvergenceChecker checker = new ConvergenceChecker(db, options);
        assertThat(checker.check().hasNoDivergence()).isTrue();

        db.getCollection("revenue").updateOne(Filters.and(Filters.eq("_id.id", "apple"),
                Filters.eq(ViewFilter.TO_FIELD, ViewFilter.OPEN)), Updates.set("revenue", 6));

        assertThat(checker.check().divergences()).singleElement().satisfies(divergence -> {
            assertThat(divergence.view()).isEqualTo("acme/revenue");
            assertThat(divergence.missing()).containsExactly(Document.parse("{_id: 'apple', revenue: 5}").toBsonDocument());
            assertThat(divergence.extra()).containsExactly(Document.parse("{_id: 'apple', revenue: 6}").toBsonDocument());
        });
    }

    private static void orders(MongoDatabase db) {
        db.getCollection("orders").insertMany(List.of(
                new Document("_id", "o1").append("_part", "acme").append("product", "apple").append("price", 2),
                new Document("_id", "o2").append("_part", "acme").append("product", "apple").append("price", 3),
                new Document("_id", "o3").append("_part", "acme").append("product", "pear").append("price", 7),
                new Document("_id", "o4").append("_part", "globex").append("product", "pear").append("price", 50)));
    }

    private static Document view(Object id, String partition, String source, String target, String... stages) {
        List<Document> pipeline = new ArrayList<>();
        for (String stage : stages) {
            pipeline.add(Document.parse(stage));
        }
        return new Document("_id", id).append("_part", partition).append("collections", List.of(source))
            .append("pipeline", pipeline).append("targetCollection", target);
    }

    /** A view document whose status says ok in a new generation, as a run of the engine leaves it. */
    private static ObjectId okView(MongoDatabase db, String id, String partition, String source, String target,
            String... stages) {
        ObjectId generation = new ObjectId();
        db.getCollection(OPTIONS.viewsCollection()).insertOne(view(id, partition, source, target, stages)
            .append(OPTIONS.statusField(), new Document("state", "ok").append("generation", generation)));
        return generation;
    }

    /** A row as the generational writer stores it: {_id: {partition, generation, id}}, content, engine fields. */
    private static void storeRow(MongoDatabase db, String target, String partition, ObjectId generation, Object id,
            Document content) {
        Document stored = new Document("_id", new Document("partition", partition).append("generation", generation)
            .append("id", id));
        stored.putAll(content);
        stored.append("_part", partition).append(ViewFilter.GENERATION_FIELD, generation)
            .append(ViewFilter.HASH_FIELD, "not-read-by-the-checker");
        db.getCollection(target).insertOne(stored);
    }
}
