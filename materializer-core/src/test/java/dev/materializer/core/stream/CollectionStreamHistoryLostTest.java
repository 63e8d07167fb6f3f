package dev.materializer.core.stream;

import java.time.Duration;
import java.util.Set;

import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A token the server does not find: a real server answers {@code ChangeStreamFatalError} (280,
 * "the resume token was not found"), and the stream starts from now. The in-process test server
 * accepts any token, so this runs on a replica set only.
 */
@MongoTest(MongoKind.REPLICA_SET)
class CollectionStreamHistoryLostTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ManualClock clock = new ManualClock();

    private final CollectionStreamTest.Recorder recorder = new CollectionStreamTest.Recorder();

    @Test
    void aTokenTheServerDoesNotFindStartsTheStreamFromNowAndSaysSo(TestMongo mongo) throws Exception {
        CheckpointStore store = new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of);
        BsonDocument notFound = tokenOfAnotherCollection(mongo);
        store.save("orders", Checkpoint.at(notFound, Set.of(), Set.of()), 0);
        CollectionStream stream = new CollectionStream(mongo.database(), "orders", false, store, recorder, clock, Duration.ofSeconds(1),
                Duration.ofSeconds(8), Duration.ZERO);
        stream.start(WAIT);
        try {
            assertThat(recorder.opened).containsExactly("resumed pending=[]");
            // The server looks for the token when the first event after it comes.
            mongo.database().getCollection("orders").insertOne(new Document("_id", "before"));
            await().atMost(WAIT).until(() -> !recorder.ended.isEmpty());
            assertThat(recorder.ended.get(0)).startsWith("history lost").contains("280");
            clock.advance(Duration.ofSeconds(1));
            await().atMost(WAIT).until(() -> recorder.opened.contains("reopened fresh"));

            mongo.database().getCollection("orders").insertOne(new Document("_id", "after"));
            await().atMost(WAIT).until(() -> !recorder.changes.isEmpty());
            assertThat(recorder.changes.get(0).documentId()).isEqualTo(new BsonString("after"));
            assertThat(store.load("orders").token()).as("the lost token is not kept").isNotEqualTo(notFound);
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
    }

    /** A real token, of an event of another collection: a stream of orders never finds it. */
    private static BsonDocument tokenOfAnotherCollection(TestMongo mongo) {
        MongoCollection<Document> other = mongo.database().getCollection("other");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = other.watch().cursor()) {
            other.insertOne(new Document("_id", "elsewhere"));
            ChangeStreamDocument<Document> event = null;
            for (long deadline = System.nanoTime() + WAIT.toNanos(); event == null && System.nanoTime() < deadline;) {
                event = cursor.tryNext();
            }
            assertThat(event).as("an event of the other collection").isNotNull();
            return event.getResumeToken();
        }
    }
}
