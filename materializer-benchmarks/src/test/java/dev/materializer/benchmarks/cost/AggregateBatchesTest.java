package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import dev.materializer.benchmarks.scale.InProcessMongo;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The cost report's server answers an aggregate in batches of its batchSize, as MongoDB does. */
class AggregateBatchesTest {

    private static final int DOCUMENTS = 5_000;

    /** Counts the engine-side view of the wire: getMores sent, and the documents of each batch received. */
    private static final class Batches implements CommandListener {

        final AtomicInteger getMores = new AtomicInteger();

        final AtomicInteger killCursors = new AtomicInteger();

        final List<Integer> sizes = new ArrayList<>();

        private final Map<Integer, String> pending = new ConcurrentHashMap<>();

        @Override
        public void commandStarted(CommandStartedEvent event) {
            pending.put(event.getRequestId(), event.getCommandName());
            if (event.getCommandName().equals("getMore")) {
                getMores.incrementAndGet();
            }
            if (event.getCommandName().equals("killCursors")) {
                killCursors.incrementAndGet();
            }
        }

        @Override
        public synchronized void commandSucceeded(CommandSucceededEvent event) {
            String name = pending.remove(event.getRequestId());
            if (("aggregate".equals(name) || "getMore".equals(name)) && event.getResponse().isDocument("cursor")) {
                BsonDocument cursor = event.getResponse().getDocument("cursor");
                String key = cursor.containsKey("firstBatch") ? "firstBatch" : "nextBatch";
                sizes.add(cursor.getArray(key).size());
            }
        }
    }

    @Test
    void anAggregateComesInBatchesOfItsBatchSize() {
        Batches batches = new Batches();
        try (InProcessMongo mongo = new InProcessMongo(new CountingBackend());
                MongoClient client = mongo.client(batches)) {
            MongoCollection<Document> collection = load(client);

            List<Integer> ids = new ArrayList<>();
            for (Document document : collection.aggregate(List.of(new Document("$sort", new Document("_id", 1))))
                .batchSize(100)) {
                ids.add(document.getInteger("_id"));
            }

            assertThat(ids).hasSize(DOCUMENTS).isSorted();
            assertThat(ids.get(DOCUMENTS - 1)).isEqualTo(DOCUMENTS - 1);
            assertThat(batches.getMores).hasValue(DOCUMENTS / 100 - 1);
            assertThat(batches.sizes).hasSize(DOCUMENTS / 100).containsOnly(100);
        }
    }

    @Test
    void anUnbatchedBackendAnswersInOneBatchAsThePlainServerDoes() {
        Batches batches = new Batches();
        try (InProcessMongo mongo = new InProcessMongo(new CountingBackend(false));
                MongoClient client = mongo.client(batches)) {
            MongoCollection<Document> collection = load(client);

            int read = 0;
            for (Document ignored : collection.aggregate(List.of(new Document("$match", new Document()))).batchSize(100)) {
                read++;
            }

            assertThat(read).isEqualTo(DOCUMENTS);
            assertThat(batches.getMores).hasValue(0);
            assertThat(batches.sizes).containsExactly(DOCUMENTS);
        }
    }

    @Test
    void aCursorClosedEarlyIsKilledAndAWholeResultNeedsNoCursor() {
        Batches batches = new Batches();
        try (InProcessMongo mongo = new InProcessMongo(new CountingBackend());
                MongoClient client = mongo.client(batches)) {
            MongoCollection<Document> collection = load(client);

            try (MongoCursor<Document> cursor = collection.aggregate(List.of(new Document("$match", new Document())))
                .batchSize(1_000).cursor()) {
                cursor.next();
            }
            assertThat(batches.killCursors).hasValue(1);

            // Without a batchSize, or with a result no larger than it, the whole result is the first batch.
            assertThat(collection.aggregate(List.of(new Document("$match", new Document()))).into(new ArrayList<>()))
                .hasSize(DOCUMENTS);
            assertThat(collection.aggregate(List.of(new Document("$limit", 10))).batchSize(10).into(new ArrayList<>()))
                .hasSize(10);
            assertThat(batches.getMores).hasValue(0);
            assertThat(batches.sizes).containsExactly(1_000, DOCUMENTS, 10);
        }
    }

    private static MongoCollection<Document> load(MongoClient client) {
        MongoCollection<Document> collection = client.getDatabase("batches").getCollection("docs");
        List<Document> documents = new ArrayList<>();
        for (int id = 0; id < DOCUMENTS; id++) {
            documents.add(new Document("_id", id).append("value", "v" + id));
        }
        collection.insertMany(documents);
        return collection;
    }
}
