package dev.materializer.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.OperationType;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture's promise, written once and run against each kind of server: a fresh database per
 * test, and change-stream events through the real driver.
 */
abstract class ChangeStreamRoundTripContract {

    private static final Duration EVENT_WAIT = Duration.ofSeconds(10);

    @Test
    void eachTestGetsAnEmptyDatabaseOfItsOwn(TestMongo mongo) {
        assertThat(mongo.database().getName()).startsWith("mt_");
        assertThat(mongo.database().listCollectionNames().into(new ArrayList<>())).isEmpty();
    }

    @Test
    void anInsertReachesAnOpenChangeStreamWithItsDocument(TestMongo mongo) {
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        orders.insertOne(new Document("_id", "warm-up"));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = orders.watch()
            .fullDocument(FullDocument.UPDATE_LOOKUP)
            .cursor()) {
            orders.insertOne(new Document("_id", "o1").append("tenant", "acme").append("total", 12));

            List<ChangeStreamDocument<Document>> events = readEvents(cursor, 1);

            assertThat(events).hasSize(1);
            ChangeStreamDocument<Document> event = events.get(0);
            assertThat(event.getOperationType()).isEqualTo(OperationType.INSERT);
            assertThat(event.getFullDocument()).containsEntry("tenant", "acme").containsEntry("total", 12);
            assertThat(event.getResumeToken()).isNotNull();
        }
    }

    @Test
    @RequiresCapability(Capability.TRANSACTIONS)
    void aCommittedTransactionIsVisible(TestMongo mongo) {
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        orders.insertOne(new Document("_id", "before"));
        try (var session = mongo.client().startSession()) {
            session.withTransaction(() -> orders.insertOne(session, new Document("_id", "inside")));
        }
        assertThat(orders.countDocuments()).isEqualTo(2);
    }

    private static List<ChangeStreamDocument<Document>> readEvents(
            MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor, int wanted) {
        List<ChangeStreamDocument<Document>> events = new ArrayList<>();
        long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
        while (events.size() < wanted && System.nanoTime() < deadline) {
            ChangeStreamDocument<Document> event = cursor.tryNext();
            if (event != null) {
                events.add(event);
            }
        }
        return events;
    }
}
