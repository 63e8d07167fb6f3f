package dev.materializer.core.stream;

import java.util.Set;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When one instance's checkpoint answers for what precedes another's position. */
class CheckpointTest {

    private static BsonDocument token(String data) {
        return new BsonDocument("_data", new BsonString(data));
    }

    private static Checkpoint saved(String token, String lastEvent, BsonTimestamp time) {
        return new Checkpoint(token(token), Set.of(), "node", Set.of("node")).withLastEvent(token(lastEvent), time);
    }

    @Test
    void theSameTokenOrTheSameLastEventOrALaterLastEventCoversWhatPrecedesAnother() {
        Checkpoint resumed = saved("t-2", "e-2", new BsonTimestamp(20, 1));

        assertThat(saved("t-2", "e-1", new BsonTimestamp(10, 1)).coversWhatPrecedes(resumed)).as("same token").isTrue();
        assertThat(saved("idle-token", "e-2", new BsonTimestamp(20, 1)).coversWhatPrecedes(resumed))
            .as("a token past the same last event").isTrue();
        assertThat(saved("t-3", "e-3", new BsonTimestamp(21, 0)).coversWhatPrecedes(resumed)).as("a later event").isTrue();
    }

    @Test
    void whatCannotBeOrderedCoversNothing() {
        Checkpoint resumed = saved("t-2", "e-2", new BsonTimestamp(20, 1));

        assertThat(saved("t-1", "e-1", new BsonTimestamp(10, 1)).coversWhatPrecedes(resumed)).as("older").isFalse();
        assertThat(saved("t-x", "e-x", new BsonTimestamp(20, 1)).coversWhatPrecedes(resumed))
            .as("another event of the same cluster time (a transaction)").isFalse();
        assertThat(new Checkpoint(token("t-9"), Set.of(), "node", Set.of()).coversWhatPrecedes(resumed))
            .as("no last event: an older engine's").isFalse();
        assertThat(saved("t-3", "e-3", new BsonTimestamp(30, 0))
            .coversWhatPrecedes(new Checkpoint(token("t-0"), Set.of(), "node", Set.of())))
            .as("resumed from a checkpoint that names no last event").isFalse();
        assertThat(saved("t-3", "e-3", new BsonTimestamp(30, 0)).coversWhatPrecedes(Checkpoint.NONE)).isFalse();
    }
}
