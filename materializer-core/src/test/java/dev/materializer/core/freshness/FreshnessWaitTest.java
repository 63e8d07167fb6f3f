package dev.materializer.core.freshness;

import java.util.HashSet;
import java.util.Set;

import dev.materializer.core.pass.PassScheduler.PassProgress;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The decision of a wait for freshness, on a probe the test sets by hand. */
class FreshnessWaitTest {

    private static final long BEGAN = 1_000;

    /** An engine as the test says it is. */
    private static final class Engine implements FreshnessProbe {

        boolean owns = true;

        @Nullable Set<String> dependsOn = Set.of("orders", "products");

        final Set<String> heard = new HashSet<>();

        @Nullable BsonTimestamp heardAfter;

        PassProgress progress = new PassProgress(0, 0, false, false);

        /** What happens while the wait reads the progress (a beat of another thread, say). */
        Runnable whileReadingProgress = () -> { };

        boolean ok = true;

        boolean definitionsHeard = true;

        boolean applyingDefinitions;

        long ownershipChanges;

        @Override
        public boolean heardDefinitions(long sinceNanos, @Nullable BsonTimestamp clusterTime) {
            assertThat(sinceNanos).isEqualTo(BEGAN);
            return definitionsHeard;
        }

        @Override
        public boolean applyingDefinitions(String partition) {
            return applyingDefinitions;
        }

        @Override
        public long ownershipChanges() {
            return ownershipChanges;
        }

        @Override
        public boolean owns(String partition) {
            return owns;
        }

        @Override
        public @Nullable Set<String> dependsOn(String partition, String id) {
            return dependsOn;
        }

        @Override
        public boolean heard(String collection, long sinceNanos, @Nullable BsonTimestamp clusterTime) {
            assertThat(sinceNanos).isEqualTo(BEGAN);
            return heard.contains(collection)
                    || (clusterTime != null && heardAfter != null && heardAfter.compareTo(clusterTime) > 0);
        }

        @Override
        public PassProgress progress(String partition, Set<String> sources) {
            whileReadingProgress.run();
            return progress;
        }

        @Override
        public boolean ok(String partition, String id) {
            return ok;
        }
    }

    private final Engine engine = new Engine();

    private FreshnessWait waitFor(@Nullable BsonTimestamp clusterTime) {
        return new FreshnessWait(engine, "acme", "revenue", BEGAN, clusterTime);
    }

    @Test
    void itWaitsUntilEveryCollectionTheViewDependsOnWasHeardThatFar() {
        FreshnessWait wait = waitFor(null);
        engine.heard.add("orders");
        assertThat(wait.look()).as("products not heard yet").isEqualTo(Freshness.WAITING);

        engine.heard.add("products");
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void aStreamThatHandedOverALaterEventHeardTheWriteEvenWithoutAPause() {
        FreshnessWait wait = waitFor(new BsonTimestamp(100, 1));
        engine.heard.add("orders");
        engine.heardAfter = new BsonTimestamp(100, 1);
        assertThat(wait.look()).as("an event at the time itself may have company still to come").isEqualTo(Freshness.WAITING);

        engine.heardAfter = new BsonTimestamp(100, 2);
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void pendingMarksKeepItWaitingUntilAPassTakenAfterTheyWereHeardEnds() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.progress = new PassProgress(4, 3, false, true);
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).as("pass 4 took its marks before the change may have been heard").isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(5, 4, false, true);
        assertThat(wait.look()).as("pass 4 ended, but it was taken before everything was heard").isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(6, 5, false, true);
        assertThat(wait.look()).as("pass 5 was taken after: newer marks pending do not matter").isEqualTo(Freshness.FRESH);
    }

    @Test
    void noPendingMarkMeansEverythingHeardIsApplied() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.progress = new PassProgress(4, 4, false, false);
        assertThat(waitFor(null).look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void aPassThatHandedMarksBackDidNotApplyThem() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.progress = new PassProgress(4, 4, false, true);
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(5, 5, true, true);
        assertThat(wait.look()).isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(6, 6, false, false);
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void aDefinitionChangeTheViewsStreamHasNotHandedOverKeepsItWaiting() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.definitionsHeard = false;
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).as("a definition acknowledged before the wait may not be read yet").isEqualTo(Freshness.WAITING);

        engine.definitionsHeard = true;
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void aDefinitionChangeStillBeingAppliedKeepsItWaitingWhateverThePassesDid() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.applyingDefinitions = true;
        engine.progress = new PassProgress(4, 4, false, false);
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(5, 5, false, true);
        assertThat(wait.look()).as("the rebalance of the new definition has not ended").isEqualTo(Freshness.WAITING);

        engine.applyingDefinitions = false;
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void aChangeOfOwnershipSinceTheStreamsWereHeardStartsTheApplyingOver() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.progress = new PassProgress(4, 3, false, true);
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).isEqualTo(Freshness.WAITING);

        // Lost and regained: pass 5 ended, but the regain's catch-up is pending and pass 5 may have been another span's.
        engine.ownershipChanges = 4;
        engine.progress = new PassProgress(5, 5, false, true);
        assertThat(wait.look()).as("a pass of the span before the change does not count").isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(6, 5, false, true);
        assertThat(wait.look()).as("the catch-up taken after the regain has not ended").isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(6, 6, false, true);
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void ownershipMovingWhileTheWaitLooksIsNotFresh() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.progress = new PassProgress(4, 4, false, false);
        engine.whileReadingProgress = () -> engine.ownershipChanges += 2;
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).as("a drop while not the owner may be what 'nothing pending' saw").isEqualTo(Freshness.WAITING);

        engine.whileReadingProgress = () -> { };
        engine.ownershipChanges = 7;
        assertThat(wait.look()).as("a change under way").isEqualTo(Freshness.WAITING);

        engine.ownershipChanges = 8;
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void aCollectionTheViewComesToDependOnMustBeHeardAndAppliedToo() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.progress = new PassProgress(4, 3, false, true);
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).isEqualTo(Freshness.WAITING);

        // A new definition reads customers too.
        engine.dependsOn = Set.of("orders", "products", "customers");
        engine.progress = new PassProgress(5, 5, false, true);
        assertThat(wait.look()).as("customers not heard yet").isEqualTo(Freshness.WAITING);

        engine.heard.add("customers");
        assertThat(wait.look()).as("pass 5 was taken before customers was heard").isEqualTo(Freshness.WAITING);

        engine.progress = new PassProgress(6, 6, false, true);
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void aViewThatIsNotOkIsNotFresh() {
        engine.heard.addAll(Set.of("orders", "products"));
        engine.ok = false;
        FreshnessWait wait = waitFor(null);
        assertThat(wait.look()).isEqualTo(Freshness.WAITING);

        engine.ok = true;
        assertThat(wait.look()).isEqualTo(Freshness.FRESH);
    }

    @Test
    void anUnknownViewAndAPartitionOwnedElsewhereAreSaidSo() {
        engine.owns = false;
        assertThat(waitFor(null).look()).isEqualTo(Freshness.NOT_OWNED);

        engine.dependsOn = null;
        assertThat(waitFor(null).look()).isEqualTo(Freshness.UNKNOWN_VIEW);
    }
}
