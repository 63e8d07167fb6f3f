package dev.materializer.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.GroupKey;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When a partition taken over may let a view go: its previous owner's status covers all this instance heard. */
class HeardChangesTest {

    private static final ViewDefinition VIEW = new ViewDefinition(new BsonString("revenue"), "acme", List.of("orders"),
            List.of(BsonDocument.parse("{$match: {}}")), "revenue", Map.of(), "fp-1");

    private static BsonDocument status(String fingerprint, int coveredSeconds) {
        return new BsonDocument("state", new BsonString("ok")).append("fingerprint", new BsonString(fingerprint))
            .append("generation", new BsonInt64(3))
            .append("covered", new BsonDocument("orders", new BsonTimestamp(coveredSeconds, 1)));
    }

    /** The views reading orders when the stream started: VIEW's definition in each partition. */
    private static List<ViewDefinition> readers(String... partitions) {
        List<ViewDefinition> views = new ArrayList<>();
        for (String partition : partitions) {
            views.add(definition(partition, "revenue", "fp-1"));
        }
        return views;
    }

    /** The keys of one event: the groups it touches. */
    private static AffectedKeys keys(String... groups) {
        Set<GroupKey> keys = new java.util.LinkedHashSet<>();
        for (String group : groups) {
            keys.add(GroupKey.of(new BsonString(group)));
        }
        return AffectedKeys.ofKeys(keys);
    }

    private static ViewDefinition definition(String partition, String id, String fingerprint) {
        return new ViewDefinition(new BsonString(id), partition, List.of("orders"),
                List.of(BsonDocument.parse("{$match: {}}")), "revenue", Map.of(), fingerprint);
    }

    @Test
    void aViewRegisteredOrRedefinedAfterTheStreamStartedIsNeverLetGoOnThisInstancesWord() {
        HeardChanges heard = new HeardChanges();
        // The stream started before revenue was registered here: only another view of acme read orders
        heard.answered("orders", Set.of("acme"), List.of(definition("acme", "other", "fp-9")));
        heard.heard("orders", "acme", Map.of("revenue", keys("fig")), new BsonTimestamp(10, 1));
        assertThat(heard.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("registered after the start").isFalse();

        HeardChanges redefined = new HeardChanges();
        redefined.answered("orders", Set.of("acme"), List.of(definition("acme", "revenue", "fp-0")));
        assertThat(redefined.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("redefined after the start").isFalse();

        HeardChanges known = new HeardChanges();
        known.answered("orders", Set.of("acme"), List.of(definition("acme", "revenue", "fp-1")));
        assertThat(known.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("known at the start, as it is now").isTrue();
    }

    @Test
    void aViewIsLetGoOnlyWhenItsStatusCoversEveryEventHeardFromAnAnsweredPosition() {
        HeardChanges heard = new HeardChanges();
        heard.answered("orders", Set.of("acme"), readers("acme"));
        heard.heard("orders", "acme", Map.of("revenue", keys("fig")), new BsonTimestamp(10, 1));

        assertThat(heard.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("covered up to the event heard").isTrue();
        assertThat(heard.toRun(VIEW, status("fp-1", 9), List.of()).isNothing())
            .as("an event after what it covers").isFalse();
        assertThat(heard.toRun(VIEW, status("fp-0", 10), List.of()).isNothing()).as("another definition ran").isFalse();
        assertThat(heard.toRun(VIEW, status("fp-1", 10), List.of("order_rows")).isNothing())
            .as("it reads other targets now")
            .isFalse();
        assertThat(heard.toRun(VIEW, null, List.of()).isNothing()).as("no status").isFalse();
        BsonDocument errored = status("fp-1", 10).append("state", new BsonString("errored"));
        assertThat(heard.toRun(VIEW, errored, List.of()).isNothing())
            .as("errored").isFalse();
    }

    @Test
    void whatIsNotKnownRunsTheView() {
        HeardChanges heard = new HeardChanges();
        assertThat(heard.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("never answered (no checkpoint)").isFalse();

        heard.answered("orders", Set.of("acme"), readers("acme"));
        heard.heard("orders", "acme", Map.of("revenue", keys("fig")), null);
        assertThat(heard.toRun(VIEW, status("fp-1", Integer.MAX_VALUE - 1), List.of()).isNothing())
            .as("an event without a time")
            .isFalse();

        HeardChanges failed = new HeardChanges();
        failed.answered("orders", Set.of("acme"), readers("acme"));
        failed.heardEvery("orders", Set.of("acme"));
        assertThat(failed.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("an event that could not be routed").isFalse();

        HeardChanges restarted = new HeardChanges();
        restarted.answered("orders", Set.of("acme"), readers("acme"));
        restarted.forget("orders", readers("acme"));
        assertThat(restarted.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("a stream started again from now").isFalse();
    }

    @Test
    void aLaterCheckpointAnswersOnlyForPartitionsHeardRoutedSinceTheStreamStarted() {
        HeardChanges heard = new HeardChanges();
        // Started from now: no checkpoint answered for anything
        heard.answered("orders", Set.of(), readers("acme", "globex", "initech"));
        HeardChanges.Unanswered asked = heard.unanswered("orders");
        assertThat(asked.partitions()).containsExactlyInAnyOrder("acme", "globex", "initech");
        heard.heardEvery("orders", Set.of("globex"));
        heard.answeredLater("orders", asked, Set.of("acme", "globex", "unknown"));

        assertThat(heard.toRun(VIEW, status("fp-1", 10), List.of()).isNothing()).as("answered later").isTrue();
        assertThat(heard.unanswered("orders").partitions()).as("a routing failure since; a partition not read at the open")
            .containsExactly("initech");

        HeardChanges restarted = new HeardChanges();
        restarted.answered("orders", Set.of(), readers("acme"));
        HeardChanges.Unanswered before = restarted.unanswered("orders");
        restarted.forget("orders", readers("acme"));
        restarted.answeredLater("orders", before, Set.of("acme"));
        assertThat(restarted.toRun(VIEW, status("fp-1", 10), List.of()).isNothing())
            .as("the stream started anew meanwhile")
            .isFalse();
    }

    @Test
    void aViewTakenOverRunsForTheKeysOfTheEventsAfterWhatItsPreviousOwnerCovered() {
        HeardChanges heard = new HeardChanges();
        heard.answered("orders", Set.of("acme"), readers("acme"));
        heard.heard("orders", "acme", Map.of("revenue", keys("apple")), new BsonTimestamp(10, 1));
        heard.heard("orders", "acme", Map.of("revenue", keys("fig")), new BsonTimestamp(11, 1));
        heard.heard("orders", "acme", Map.of("revenue", keys("kiwi", "fig")), new BsonTimestamp(12, 1));

        assertThat(heard.toRun(VIEW, status("fp-1", 12), List.of()).isNothing())
            .as("covered up to the newest").isTrue();
        HeardChanges.HandoverRun afterTen = heard.toRun(VIEW, status("fp-1", 10), List.of());
        assertThat(afterTen.whole()).isFalse();
        assertThat(afterTen.keys().get("orders").keys()).as("the keys of the events after 10, not those of 10")
            .containsExactlyInAnyOrder(GroupKey.of(new BsonString("fig")), GroupKey.of(new BsonString("kiwi")));
        assertThat(heard.toRun(VIEW, status("fp-1", 9), List.of()).keys().get("orders").keys()).hasSize(3);

        assertThat(heard.toRun(VIEW, status("fp-0", 12), List.of()).whole()).as("another definition ran").isTrue();
        assertThat(heard.toRun(VIEW, null, List.of()).whole()).as("no status").isTrue();
        assertThat(heard.toRun(VIEW, status("fp-1", 10).append("covered", new BsonDocument()), List.of()).keys()
            .get("orders").keys()).as("no covered time: the answered position vouches for what came before the stream")
            .hasSize(3);

        HeardChanges unkeyed = new HeardChanges();
        unkeyed.answered("orders", Set.of("acme"), readers("acme"));
        unkeyed.heard("orders", "acme", Map.of("revenue", AffectedKeys.fullPass("an update of the group field")),
                new BsonTimestamp(11, 1));
        assertThat(unkeyed.toRun(VIEW, status("fp-1", 10), List.of()).whole()).as("an event that named no keys").isTrue();
        assertThat(unkeyed.toRun(VIEW, status("fp-1", 11), List.of()).isNothing()).as("and was applied").isTrue();
    }

    @Test
    void aViewThatRunsCarriesTheNewestKnownTimeOfTheEventsHeardOfItReadWithTheKeys() {
        HeardChanges heard = new HeardChanges();
        heard.answered("orders", Set.of("acme"), readers("acme"));
        heard.heard("orders", "acme", Map.of("revenue", keys("apple")), new BsonTimestamp(10, 1));
        heard.heard("orders", "acme", Map.of("revenue", keys("fig")), new BsonTimestamp(12, 1));
        heard.heard("orders", "acme", Map.of("revenue", keys("kiwi")), null);

        HeardChanges.HandoverRun run = heard.toRun(VIEW, status("fp-1", 10), List.of());

        assertThat(run.keys().get("orders").keys()).as("fig, and kiwi of unknown time")
            .containsExactlyInAnyOrder(GroupKey.of(new BsonString("fig")), GroupKey.of(new BsonString("kiwi")));
        assertThat(run.heardUpTo()).as("an event of unknown time runs its keys but names no time")
            .containsExactly(Map.entry("orders", new BsonTimestamp(12, 1)));
        HeardChanges.HandoverRun whole = heard.toRun(VIEW, null, List.of());
        assertThat(whole.whole()).isTrue();
        assertThat(whole.heardUpTo()).as("a view run whole names it too: its pass reads at or after it")
            .containsExactly(Map.entry("orders", new BsonTimestamp(12, 1)));
    }

    @Test
    void keysForgottenPastTheBoundRunTheViewWholeUnlessTheStatusCoversThem() {
        HeardChanges heard = new HeardChanges();
        heard.answered("orders", Set.of("acme"), readers("acme"));
        int events = RecentKeys.MAX_EVENTS + 5;
        for (int second = 1; second <= events; second++) {
            heard.heard("orders", "acme", Map.of("revenue", keys("k" + second)), new BsonTimestamp(second, 1));
        }
        // The five oldest were forgotten (no status was heard to let them go)
        assertThat(heard.toRun(VIEW, status("fp-1", 4), List.of()).whole()).as("an event after 4 was forgotten").isTrue();
        assertThat(heard.toRun(VIEW, status("fp-1", 4).append("covered", new BsonDocument()), List.of()).whole())
            .as("no covered time, and events were forgotten").isTrue();
        HeardChanges.HandoverRun afterFive = heard.toRun(VIEW, status("fp-1", 5), List.of());
        assertThat(afterFive.whole()).isFalse();
        assertThat(afterFive.keys().get("orders").keys()).hasSize(RecentKeys.MAX_EVENTS);
    }

    @Test
    void keysTheViewsStatusCoversAreLetGoFirstSoAnOwnerThatKeepsUpCostsFewKeys() {
        java.util.concurrent.atomic.AtomicInteger covered = new java.util.concurrent.atomic.AtomicInteger();
        HeardChanges heard = new HeardChanges((partition, viewId, collection) -> new BsonTimestamp(covered.get(), 1));
        heard.answered("orders", Set.of("acme"), readers("acme"));
        int events = RecentKeys.MAX_EVENTS * 3;
        for (int second = 1; second <= events; second++) {
            // The owner applies each event a little after it: its status covers up to two events back
            covered.set(second - 2);
            heard.heard("orders", "acme", Map.of("revenue", keys("k" + second)), new BsonTimestamp(second, 1));
        }
        HeardChanges.HandoverRun run = heard.toRun(VIEW, status("fp-1", events - 2), List.of());
        assertThat(run.whole()).as("only what the status covered was let go").isFalse();
        assertThat(run.keys().get("orders").keys()).containsExactlyInAnyOrder(
                GroupKey.of(new BsonString("k" + (events - 1))), GroupKey.of(new BsonString("k" + events)));
        assertThat(heard.toRun(VIEW, status("fp-1", events - 50), List.of()).whole())
            .as("a stored status behind what was let go (replaced since) runs whole").isTrue();
    }
}
