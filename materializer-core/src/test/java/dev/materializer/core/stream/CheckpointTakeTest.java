package dev.materializer.core.stream;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** How a checkpoint is taken: the live set, the pending partitions, the live set again. */
class CheckpointTakeTest {

    private static final BsonDocument TOKEN = new BsonDocument("_data", new BsonString("82"));

    @Test
    void aLiveSetThatStaysTheSameAroundThePendingListIsSavedWithIt() {
        Checkpoint taken = Checkpoint.take(TOKEN, () -> Set.of("a", "b"), () -> Set.of("acme"));

        assertThat(taken.token()).isEqualTo(TOKEN);
        assertThat(taken.live()).containsExactlyInAnyOrder("a", "b");
        assertThat(taken.pending()).containsExactly("acme");
    }

    @Test
    void aLiveSetThatChangedWhileThePendingListWasReadIsReadAgainWithANewPendingList() {
        Deque<Set<String>> lives = new ArrayDeque<>(List.of(Set.of("a", "b"), Set.of("a"), Set.of("a"), Set.of("a")));
        Deque<Set<String>> pendings = new ArrayDeque<>(List.of(Set.of("acme", "globex"), Set.of("acme")));

        Checkpoint taken = Checkpoint.take(TOKEN, lives::pop, pendings::pop);

        assertThat(taken.live()).as("the live set of the second take").containsExactly("a");
        assertThat(taken.pending()).as("the pending list read under it").containsExactly("acme");
        assertThat(pendings).isEmpty();
    }

    @Test
    void aLiveSetThatKeepsChangingSavesNothing() {
        AtomicInteger beat = new AtomicInteger();

        assertThatIllegalStateException()
            .isThrownBy(() -> Checkpoint.take(TOKEN, () -> Set.of("i" + beat.getAndIncrement()), Set::of))
            .withMessageContaining("live instances kept changing");
        assertThat(beat.get()).isEqualTo(2 * Checkpoint.LIVE_SET_READS);
    }
}
