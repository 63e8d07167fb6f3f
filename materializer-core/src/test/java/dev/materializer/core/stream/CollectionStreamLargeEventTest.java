package dev.materializer.core.stream;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.Capability;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.RequiresCapability;
import dev.materializer.testing.TestMongo;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An event over 16 MB — the update of a 14 MB document with its post-image and pre-image — comes
 * in fragments, reaches the listener as one event that routes, and the stream goes on; the token
 * it saves after such an event resumes after it, not in its middle.
 */
@MongoTest(MongoKind.REPLICA_SET)
@RequiresCapability(Capability.SPLIT_LARGE_EVENTS)
class CollectionStreamLargeEventTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final int MEGABYTE = 1024 * 1024;

    private final ManualClock clock = new ManualClock();

    @Test
    void anEventOver16MegabytesComesWholeRoutesAndTheStreamGoesOn(TestMongo mongo) throws Exception {
        mongo.database().createCollection("docs", new CreateCollectionOptions()
            .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        MongoCollection<Document> docs = mongo.database().getCollection("docs");
        // Two 7 MB fields: the document stays under 16 MB, its update event (7 MB of update
        // description, 14 MB of post-image, 14 MB of pre-image) does not.
        docs.insertOne(new Document("_id", "big").append("_part", "acme").append("a", "a".repeat(7 * MEGABYTE))
            .append("b", "b".repeat(7 * MEGABYTE)));
        CheckpointStore store = new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of);
        CollectionStreamTest.Recorder recorder = new CollectionStreamTest.Recorder();
        CollectionStream stream = new CollectionStream(mongo.database(), "docs", true, "_part", store, recorder, clock,
                Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO);
        stream.start(WAIT);
        try {
            assertThat(stream.chosenPipeline()).isEqualTo(WatchPipeline.Kind.SPLIT);

            docs.updateOne(Filters.eq("_id", "big"), Updates.set("a", "c".repeat(7 * MEGABYTE)));
            docs.insertOne(new Document("_id", "next").append("_part", "acme"));

            await().atMost(WAIT).until(() -> recorder.changes.size() == 2);
            SourceChange update = recorder.changes.get(0);
            assertThat(update.operation()).isEqualTo(SourceChange.Operation.UPDATE);
            assertThat(update.documentId()).isEqualTo(new BsonString("big"));
            assertThat(update.fullDocument()).containsEntry("_part", new BsonString("acme"));
            assertThat(update.fullDocumentBeforeChange()).containsEntry("_part", new BsonString("acme"));
            assertThat(update.update()).isNotNull();
            assertThat(update.update().updated()).containsExactly("a");
            assertThat(new PartitionRouter("_part", Map.of()).route("docs", update).partitions()).containsExactly("acme");
            assertThat(recorder.changes.get(1).documentId()).as("the stream goes on").isEqualTo(new BsonString("next"));
            assertThat(recorder.ended).as("the stream never failed").isEmpty();
            // A second large event, the last one before the stream closes and saves its token.
            docs.updateOne(Filters.eq("_id", "big"), Updates.set("a", "d".repeat(7 * MEGABYTE)));
            await().atMost(WAIT).until(() -> recorder.changes.size() == 3);
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }

        CollectionStreamTest.Recorder second = new CollectionStreamTest.Recorder();
        CollectionStream again = new CollectionStream(mongo.database(), "docs", true, "_part", store, second, clock,
                Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO);
        again.start(WAIT);
        try {
            docs.insertOne(new Document("_id", "later").append("_part", "acme"));
            await().atMost(WAIT).until(() -> !second.changes.isEmpty());
            assertThat(second.opened).containsExactly("resumed pending=[]");
            assertThat(second.changes.get(0).documentId()).as("resumed after the whole event, not in it")
                .isEqualTo(new BsonString("later"));
            assertThat(second.ended).isEmpty();
        }
        finally {
            again.close();
            again.awaitClosed(WAIT);
        }
    }
}
