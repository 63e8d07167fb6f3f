package dev.materializer.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.PassScope;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.REVENUE;
import static dev.materializer.core.engine.MaterializerContract.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Views registered while the stream of their source already runs. Where a server does not split
 * large events (the in-process server, MongoDB before 6.0.9), the stream projects its events down to
 * the fields the views registered at its open key by: a view added later must neither read a key
 * from an image that lacks it nor stay without its keys.
 */
abstract class LateViewContract {

    private static final String LINES = "{\"$project\": {\"product\": 1, \"quantity\": 1}}";

    /** Keyed by a field of the order, not its {@code _id}. */
    private static final String BY_CUSTOMER = "{\"$project\": {\"_id\": \"$customer\", \"product\": 1}}";

    @Test
    void aPerDocumentViewAddedAfterTheStreamOpenedSeesTheInsertsAfterIt(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.defineView("lines", "acme", List.of("orders"), "lines", LINES);
            awaitOk(f, "lines");
            f.settle();
            f.events.clear();
            f.collection("orders").insertMany(List.of(order("o2", "acme", "pear", 1, 5), order("o3", "acme", "fig", 4, 1)));
            f.events.awaitChanges(2);
            f.settle();

            assertThat(f.engine.awaitFresh("acme", "lines", Duration.ofSeconds(10))).isTrue();
            assertThat(f.rows("lines", "lines")).as("a fresh run of its pipeline").isEqualTo(freshRun(f, "acme", LINES));
            assertThat(f.rows("lines", "lines")).hasSize(3);
        }
    }

    @Test
    void aViewKeyedByAFieldTheOpenStreamDidNotKeepGetsItsKeysFromTheStreamsNextEvents(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            // Heard by the stream, which so has a position to resume from (the in-process server gives
            // no token before the first event; a real one gives one at once)
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.events.awaitChanges(1);
            f.settle();

            f.defineView("buyers", "acme", List.of("orders"), "buyers", BY_CUSTOMER);
            awaitOk(f, "buyers");
            // A projected stream reopens to keep the new view's key (one that splits events carries whole images)
            await().atMost(RecordingListener.WAIT).until(() -> {
                java.util.Set<String> paths = EngineProbe.imagePaths(f.engine, "orders");
                return paths == null || paths.contains("customer");
            });
            f.settle();
            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.rows("buyers", "buyers")).isEqualTo(freshRun(f, "acme", BY_CUSTOMER));
            assertThat(f.events.passesOf("acme", "buyers")).last().satisfies(report -> {
                assertThat(report.scope()).as("the stream keeps customer now: " + report.scopeNote())
                    .isEqualTo(PassScope.KEYS);
                assertThat(report.scopeNote()).isEqualTo("1 key of customer");
            });
        }
    }

    private static void awaitOk(EngineFixture f, String id) {
        f.awaitStatus(id, "ok");
    }

    /** The rows a fresh run of the pipeline on the partition's orders gives, as {@link EngineFixture#rows} shows them. */
    private static List<Document> freshRun(EngineFixture f, String partition, String stage) {
        List<Document> rows = new ArrayList<>();
        for (Document result : f.collection("orders").aggregate(List.of(
                new Document("$match", new Document(f.options.partitionField(), partition)), Document.parse(stage),
                new Document("$sort", new Document("_id", 1))))) {
            Document row = new Document("id", result.get("_id"));
            result.forEach((key, value) -> {
                if (!key.equals("_id") && !key.equals(f.options.partitionField())) {
                    row.append(key, value);
                }
            });
            rows.add(row);
        }
        return rows;
    }
}
