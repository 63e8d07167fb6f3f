package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import dev.materializer.benchmarks.scale.InProcessMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cost report's backend counts exactly what each collection examines, on the test server the
 * project's tests run on (its update events carry an update description; its {@code _id} index
 * serves a query that names {@code _id} beside other fields; a non-unique index serves an equality).
 */
class CountingBackendTest {

    private static final int DOCUMENTS = 1_000;

    private static final String ORDERS = "counting.orders";

    @Test
    void anAggregateCountsWhatItScannedAndWhatPassedItsLeadingMatch() {
        CountingBackend backend = new CountingBackend();
        try (InProcessMongo mongo = new InProcessMongo(backend); MongoClient client = mongo.client()) {
            MongoCollection<Document> orders = load(client);
            CountingBackend.Snapshot before = backend.snapshot();

            List<Document> open = orders.aggregate(List.of(new Document("$match", new Document("status", "open")),
                    new Document("$match", new Document("amount", new Document("$lt", 10))))).into(new ArrayList<>());

            CountingBackend.Snapshot counted = backend.snapshot().since(before);
            assertThat(open).hasSize(50);
            assertThat(counted.examined(ORDERS)).containsExactly(Map.entry("aggregate", (long) DOCUMENTS));
            assertThat(counted.count(ORDERS, CountingBackend.PASSED_LEADING_MATCH)).isEqualTo(50);
        }
    }

    @Test
    void withAnIndexThatServesTheLeadingMatchAnAggregateExaminesWhatTheIndexGives() {
        CountingBackend backend = new CountingBackend();
        try (InProcessMongo mongo = new InProcessMongo(backend); MongoClient client = mongo.client()) {
            MongoCollection<Document> orders = load(client);
            orders.createIndex(Indexes.ascending("status"));
            CountingBackend.Snapshot before = backend.snapshot();

            List<Document> open = orders.aggregate(List.of(new Document("$match", new Document("status", "open")),
                    new Document("$match", new Document("amount", new Document("$lt", 10))))).into(new ArrayList<>());
            List<Document> closed = orders.find(Filters.and(Filters.eq("status", "closed"), Filters.lt("amount", 10)))
                .into(new ArrayList<>());

            CountingBackend.Snapshot counted = backend.snapshot().since(before);
            assertThat(open).hasSize(50);
            assertThat(closed).hasSize(50);
            assertThat(counted.examined(ORDERS))
                .containsExactly(Map.entry("aggregate", (long) DOCUMENTS / 2), Map.entry("find", (long) DOCUMENTS / 2));
            assertThat(counted.count(ORDERS, CountingBackend.PASSED_LEADING_MATCH)).isEqualTo(50);
        }
    }

    @Test
    void anAggregateAnswersAsThePlainServerWhileOnlyWhatPassedItsLeadingMatchGoesOn() {
        CountingBackend backend = new CountingBackend();
        try (InProcessMongo mongo = new InProcessMongo(backend); MongoClient client = mongo.client()) {
            MongoCollection<Document> orders = load(client);
            Document open = new Document("$match", new Document("status", "open").append("amount", new Document("$lt", 10)));
            CountingBackend.Snapshot before = backend.snapshot();

            // The stages after the leading match see what passed it; a stage's own read of the collection sees it all.
            List<Document> facets = orders.aggregate(List.of(open, new Document("$facet", new Document()
                .append("small", List.of(new Document("$match", new Document("amount", new Document("$lt", 5)))))
                .append("all", List.of(new Document("$lookup", new Document("from", "orders")
                    .append("pipeline", List.of(new Document("$group", new Document("_id", null)
                        .append("n", new Document("$sum", 1)))))
                    .append("as", "orders"))))))).into(new ArrayList<>());

            assertThat(facets).hasSize(1);
            assertThat(facets.get(0).getList("small", Document.class)).hasSize(30);
            List<Document> all = facets.get(0).getList("all", Document.class);
            assertThat(all).hasSize(50);
            assertThat(all.get(0).getList("orders", Document.class).get(0).getInteger("n")).isEqualTo(DOCUMENTS);
            CountingBackend.Snapshot counted = backend.snapshot().since(before);
            assertThat(counted.count(ORDERS, CountingBackend.PASSED_LEADING_MATCH)).isEqualTo(50);
        }
    }

    @Test
    void aWriteByIdAndPartitionExaminesOneDocument() {
        CountingBackend backend = new CountingBackend();
        try (InProcessMongo mongo = new InProcessMongo(backend); MongoClient client = mongo.client()) {
            MongoCollection<Document> orders = load(client);
            CountingBackend.Snapshot before = backend.snapshot();

            // As the engine writes a row: {_id, _part} (Filters.and would send an $and, which no server plans by _id here).
            orders.updateOne(new Document("_id", 7).append("_part", "acme"), Updates.inc("amount", 1));
            orders.deleteOne(new Document("_id", 8).append("_part", "acme"));

            assertThat(backend.snapshot().since(before).examined(ORDERS))
                .containsExactly(Map.entry("delete", 1L), Map.entry("update", 1L));
        }
    }

    @Test
    void aChangeStreamLooksAnUpdatedDocumentUpByIdAndItsEventDescribesTheUpdate() {
        CountingBackend backend = new CountingBackend();
        try (InProcessMongo mongo = new InProcessMongo(backend); MongoClient client = mongo.client()) {
            MongoCollection<Document> orders = load(client);
            mongo.enableOplog();
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = orders.watch()
                .fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
                orders.updateOne(Filters.eq("_id", 4), Updates.set("status", "closed"));
                CountingBackend.Snapshot before = backend.snapshot();

                ChangeStreamDocument<Document> event = stream.tryNext();
                for (int poll = 0; event == null && poll < 100; poll++) {
                    event = stream.tryNext();
                }

                assertThat(event).as("the update's event").isNotNull();
                assertThat(event.getUpdateDescription()).isNotNull();
                assertThat(event.getUpdateDescription().getUpdatedFields()).containsOnlyKeys("status");
                assertThat(event.getFullDocument()).containsEntry("status", "closed");
                assertThat(backend.snapshot().since(before).examined(ORDERS))
                    .containsExactly(Map.entry(CountingBackend.LOOKUPS, 1L));
            }
        }
    }

    private static MongoCollection<Document> load(MongoClient client) {
        MongoCollection<Document> orders = client.getDatabase("counting").getCollection("orders");
        List<Document> documents = new ArrayList<>();
        for (int id = 0; id < DOCUMENTS; id++) {
            documents.add(new Document("_id", id).append("_part", "acme").append("amount", id % 100)
                .append("status", id % 2 == 0 ? "open" : "closed"));
        }
        orders.insertMany(documents);
        return orders;
    }
}
