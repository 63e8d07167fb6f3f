package dev.materializer.core.stream;

import java.time.Duration;
import java.util.Set;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which checkpoint a stream without one of its own resumes from: the one the most others are at or
 * after, among the recent ones, so the word of every writer at or after
 * it answers for that writer's partitions — not the newest alone, which leaves those of every
 * checkpoint behind it to catch up whole.
 */
@MongoTest(MongoKind.IN_PROCESS)
class CheckpointStoreInProcessTest {

    private static final String COLLECTION = "_materializerCheckpoints";

    private static final Duration LEASE = Duration.ofSeconds(30);

    /** Saves a checkpoint of orders as one instance, whose newest event handed over had a time. */
    private static void save(TestMongo mongo, String instance, int eventSeconds, long savedAtMillis) {
        BsonDocument event = new BsonDocument("_data", new BsonString("e-" + eventSeconds));
        Checkpoint checkpoint = new Checkpoint(new BsonDocument("_data", new BsonString("t-" + eventSeconds)),
                Set.of(), instance, Set.of("a", "b", "c")).withLastEvent(event, new BsonTimestamp(eventSeconds, 1));
        new CheckpointStore(mongo.database(), COLLECTION, instance, () -> Set.of("a", "b", "c"))
            .save("orders", checkpoint, savedAtMillis);
    }

    private static CheckpointStore newcomer(TestMongo mongo, Set<String> live) {
        return new CheckpointStore(mongo.database(), COLLECTION, "n", () -> live, LEASE);
    }

    @Test
    void aNewcomerResumesWhereEveryRecentCheckpointIsAtOrAfterIt(TestMongo mongo) {
        // b saved behind the others (its stream was quiet); a left just now, its last save the newest.
        save(mongo, "b", 10, 100_000);
        save(mongo, "c", 20, 101_000);
        save(mongo, "a", 30, 102_000);

        Checkpoint from = newcomer(mongo, Set.of("b", "c", "n")).load("orders");

        assertThat(from.writer()).as("the oldest of them: the others are at or after it").isEqualTo("b");
        assertThat(from.alongside()).extracting(Checkpoint::writer).containsExactlyInAnyOrder("a", "c");
    }

    @Test
    void anOldCheckpointOfAnInstanceGoneLongAgoIsNotWhereANewcomerResumes(TestMongo mongo) {
        // c died long ago (no heartbeat; nothing removed its checkpoint since): its position may be out of history.
        save(mongo, "c", 5, 0);
        save(mongo, "b", 10, 100_000);
        save(mongo, "a", 30, 102_000);

        Checkpoint from = newcomer(mongo, Set.of("a", "b", "n")).load("orders");

        assertThat(from.writer()).isEqualTo("b");
        assertThat(from.alongside()).extracting(Checkpoint::writer).containsExactly("a");
    }

    @Test
    void anOldCheckpointIsNoCandidateEvenOfALiveInstanceAndTheNewestWinsATie(TestMongo mongo) {
        // c is live, but its stream stalled long ago: resuming there could reach out of the history
        save(mongo, "c", 5, 0);
        save(mongo, "b", 30, 100_000);
        save(mongo, "a", 30, 102_000);

        Checkpoint from = newcomer(mongo, Set.of("a", "b", "c", "n")).load("orders");

        assertThat(from.writer()).as("a and b stand at the same event, and a saved last").isEqualTo("a");
        assertThat(from.alongside()).extracting(Checkpoint::writer).containsExactly("b");
    }

    @Test
    void anInstanceWithACheckpointOfItsOwnResumesFromIt(TestMongo mongo) {
        save(mongo, "b", 10, 100_000);
        save(mongo, "a", 30, 102_000);

        Checkpoint from = new CheckpointStore(mongo.database(), COLLECTION, "a", () -> Set.of("a", "b"), LEASE)
            .load("orders");

        assertThat(from.writer()).isEqualTo("a");
        assertThat(from.alongside()).as("b is behind it").isEmpty();
    }
}
