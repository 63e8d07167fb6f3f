package dev.materializer.core.stream;

import java.time.Duration;
import java.util.Set;

import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A token the server does not know: a real server refuses it (the in-process test server accepts
 * any token, so this runs on a replica set only).
 */
@MongoTest(MongoKind.REPLICA_SET)
class CollectionStreamHistoryLostTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ManualClock clock = new ManualClock();

    private final CollectionStreamTest.Recorder recorder = new CollectionStreamTest.Recorder();

    @Test
    void aTokenTheServerNoLongerKnowsStartsTheStreamFromNowAndSaysSo(TestMongo mongo) throws Exception {
        CheckpointStore store = new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of);
        store.save("orders", Checkpoint.at(BsonDocument.parse("{\"_data\": \"00BADBADBAD\"}"), Set.of(), Set.of()), 0);
        CollectionStream stream = new CollectionStream(mongo.database(), "orders", false, store, recorder, clock, Duration.ofSeconds(1),
                Duration.ofSeconds(8), Duration.ZERO);
        stream.start(WAIT);
        try {
            await().atMost(WAIT).until(() -> !recorder.ended.isEmpty());
            assertThat(recorder.ended.get(0)).startsWith("history lost");
            clock.advance(Duration.ofSeconds(1));
            await().atMost(WAIT).until(() -> recorder.opened.contains("reopened fresh"));

            mongo.database().getCollection("orders").insertOne(new Document("_id", "after"));
            await().atMost(WAIT).until(() -> !recorder.changes.isEmpty());
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
    }

}
