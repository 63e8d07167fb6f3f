package dev.materializer.core.engine;

import java.util.Set;

import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.GroupKey;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The keys of the newest events of a view: complete after any time asked, or unknown. */
class RecentKeysTest {

    private static AffectedKeys key(int value) {
        return AffectedKeys.ofKeys(Set.of(GroupKey.of(new BsonInt32(value))));
    }

    private static BsonTimestamp at(int seconds) {
        return new BsonTimestamp(seconds, 1);
    }

    @Test
    void anEventOfUnknownTimeIsAfterEveryCoveredTimeAndNeverLetGoForOne() {
        RecentKeys log = new RecentKeys(at(1), key(1));
        log.note(RecentKeys.UNKNOWN, key(2), () -> null);
        for (int second = 3; second <= RecentKeys.MAX_EVENTS; second++) {
            log.note(at(second), key(second), () -> null);
        }
        assertThat(log.size()).isEqualTo(RecentKeys.MAX_EVENTS);

        // Full: the covered time lets go of the first event only; the one of unknown time stops it
        log.note(at(100), key(100), () -> at(99));
        assertThat(log.after(at(99)).keys().keys()).as("the event of unknown time, and the newest")
            .containsExactlyInAnyOrder(GroupKey.of(new BsonInt32(2)), GroupKey.of(new BsonInt32(100)));
        assertThat(log.after(at(0)).keys()).as("the first event was let go").isNull();
    }

    @Test
    void anEventOfUnknownTimeForgottenPastTheBoundLeavesEveryTimeUnknown() {
        RecentKeys log = new RecentKeys(RecentKeys.UNKNOWN, key(0));
        for (int second = 1; second <= RecentKeys.MAX_EVENTS; second++) {
            log.note(at(second), key(second), () -> null);
        }
        assertThat(log.size()).isEqualTo(RecentKeys.MAX_EVENTS);
        assertThat(log.after(at(1000)).keys()).as("what the forgotten event touched is unknown").isNull();
        assertThat(log.after(null).keys()).isNull();
    }

    @Test
    void anEventThatNamedNoKeysIsAFullPassForEveryTimeBeforeIt() {
        RecentKeys log = new RecentKeys(at(1), AffectedKeys.fullPass("an update of the group field"));
        log.note(at(2), key(2), () -> null);
        assertThat(log.after(at(0)).keys().needsFullPass()).isTrue();
        assertThat(log.after(at(1)).keys().keys()).containsExactly(GroupKey.of(new BsonInt32(2)));
        assertThat(log.after(at(2)).keys().isEmpty()).as("nothing after the newest").isTrue();
    }
}
