package dev.materializer.core.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.cluster.Rendezvous;
import dev.materializer.core.PartitionTargetId;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewState;
import dev.materializer.testing.TestMongo;
import dev.materializer.core.view.CoveredTimes;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.REVENUE;
import static dev.materializer.core.engine.MaterializerContract.order;
import static dev.materializer.core.engine.MaterializerContract.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

/**
 * Stop, crash, handover and bad-input sequences that once left a view different from its pipeline
 * for good. Each ends with the sources quiet and asserts what a reader sees equals a fresh run.
 */
abstract class NeverLoseAChangeContract {

    /** Enough tenants that every way a partition can move between three instances has some. */
    private static final List<String> TENANTS = java.util.stream.IntStream.range(0, 24).mapToObj(i -> "t" + i).toList();

    @Test
    void aCrashedInstanceRestartedUnderItsIdWithinTheLeaseRunsWhatChangedWhileItWasDown(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        try (EngineFixture b = instance(mongo, clock, "node-b"); EngineFixture a = instance(mongo, clock, "node-a")) {
            // Both streams save where they stand, then node-a dies.
            startTwoAndSaveCheckpoints(a, b, clock, mongo);
            EngineProbe.crash(a.engine);

            String tenant = ownedBy("node-a", "node-a", "node-b");
            b.collection("orders").insertOne(order("late", tenant, "fig", 2, 5));
            b.events.awaitChanges(1);
            // node-b saves a checkpoint past the change, which it does not own.
            saveCheckpoints(clock, mongo);

            try (EngineFixture again = instance(mongo, clock, "node-a")) {
                again.start();
                again.settle();
                assertThat(again.rows("revenue-" + tenant, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 10));
            }
        }
    }

    @Test
    void aCrashedInstanceReplacedByANewIdWithinTheLeaseLosesNoChange(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        // Leases are in server time: a short one, so the dead instance's runs out within the test.
        Duration lease = Duration.ofSeconds(3);
        try (EngineFixture b = instance(mongo, clock, "node-b", lease); EngineFixture a = instance(mongo, clock, "node-a", lease)) {
            seed(a);
            a.start();
            b.start();
            clock.advance(a.options.partitionLease().dividedBy(3));
            awaitLive(b, "node-a", "node-b");
            touchEveryTenant(a);
            a.settle();
            b.settle();
            saveCheckpoints(clock, mongo);
            EngineProbe.crash(a.engine);

            for (String tenant : TENANTS) {
                b.collection("orders").insertOne(order("late-" + tenant, tenant, "fig", 2, 5));
            }
            b.events.awaitChanges(TENANTS.size());
            saveCheckpoints(clock, mongo);

            assertThat(TENANTS).as("a tenant node-a owned that the new instance owns from its start")
                .anyMatch(tenant -> Rendezvous.owner(tenant, List.of("node-a", "node-b")).equals("node-a")
                        && Rendezvous.owner(tenant, List.of("node-a", "node-b", "node-c")).equals("node-c"));
            try (EngineFixture c = instance(mongo, clock, "node-c", lease)) {
                c.start();
                // node-a's lease runs out (server time): its partitions move to the two left.
                await().atMost(RecordingListener.WAIT).until(() -> {
                    clock.advance(lease.dividedBy(3));
                    b.drain();
                    c.drain();
                    return EngineProbe.liveInstances(b.engine).equals(java.util.Set.of("node-b", "node-c"))
                            && EngineProbe.liveInstances(c.engine).equals(java.util.Set.of("node-b", "node-c"));
                });
                b.settle();
                c.settle();
                for (String tenant : TENANTS) {
                    assertThat(c.rows("revenue-" + tenant, "revenue")).as(tenant)
                        .containsExactly(row("apple", "revenue", 1), row("fig", "revenue", 10));
                }
            }
        }
    }

    @Test
    void aRestartUnderANewIdAfterAClusterOfTwoRunsOnlyTheViewsOfWhatChangedWhileItWasDown(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        try (EngineFixture b = instance(mongo, clock, "node-b"); EngineFixture a = instance(mongo, clock, "node-a")) {
            startTwoAndSaveCheckpoints(a, b, clock, mongo);
        }
        String changed = TENANTS.get(5);
        mongo.database().getCollection("orders").insertOne(order("while-down", changed, "fig", 2, 5));

        try (EngineFixture c = instance(mongo, clock, "node-c")) {
            c.start();
            c.settle();
            // Each checkpoint answers for its writer's tenants up to the same last event: only the change runs
            assertThat(c.events.passes).extracting(report -> report.view().partition()).containsOnly(changed);
            assertThat(c.rows("revenue-" + changed, "revenue")).containsExactly(row("apple", "revenue", 1),
                    row("fig", "revenue", 10));
            for (String tenant : TENANTS) {
                if (!tenant.equals(changed)) {
                    assertThat(c.rows("revenue-" + tenant, "revenue")).as(tenant).containsExactly(row("apple", "revenue", 1));
                }
            }
        }
    }

    @Test
    void aPartitionTakenOverRunsOnlyTheViewsWithChangesItsPreviousOwnerDidNotApply(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        String applied;
        String unapplied;
        EngineFixture b = instance(mongo, clock, "node-b");
        try {
            try (EngineFixture first = instance(mongo, clock, "node-a")) {
                startTwoAndSaveCheckpoints(first, b, clock, mongo);
            }
            // node-a comes back (a rolling restart): its streams resume where both checkpoints answer for every tenant
            try (EngineFixture a = instance(mongo, clock, "node-a")) {
                a.start();
                clock.advance(a.options.partitionLease().dividedBy(3));
                awaitLive(a, "node-a", "node-b");
                awaitLive(b, "node-a", "node-b");
                a.settle();
                b.settle();
                List<String> ofB = TENANTS.stream()
                    .filter(tenant -> Rendezvous.owner(tenant, List.of("node-a", "node-b")).equals("node-b")).toList();
                applied = ofB.get(0);
                unapplied = ofB.get(1);
                // node-b applies a change of one of its tenants...
                int heard = a.events.changes.get();
                b.collection("orders").insertOne(order("applied", applied, "fig", 2, 5));
                a.events.awaitChanges(heard + 1);
                b.settle();
                assertThat(b.rows("revenue-" + applied, "revenue")).contains(row("fig", "revenue", 10));
                // ...and stops having heard one of another, before its pass (a stop runs no pass)
                heard = a.events.changes.get();
                int heardByB = b.events.changes.get();
                b.collection("orders").insertOne(order("unapplied", unapplied, "fig", 3, 5));
                a.events.awaitChanges(heard + 1);
                b.events.awaitChanges(heardByB + 1);
                b.close();
                a.events.clear();
                BsonTimestamp coveredBefore = coveredOfOrders(a, "revenue-" + unapplied);

                // node-b's heartbeat is gone: node-a takes its tenants at its next beat
                clock.advance(a.options.partitionLease().dividedBy(3));
                awaitLive(a, "node-a");
                a.settle();

                assertThat(a.events.passes).extracting(report -> report.view().partition()).containsOnly(unapplied);
                // This instance heard the change's key while it did not own the tenant: only that key runs
                assertThat(a.events.passes).extracting(PassReport::scope).containsOnly(PassScope.KEYS);
                // ...and its status says what it applied, so the next owner does not run the key again
                BsonTimestamp coveredAfter = coveredOfOrders(a, "revenue-" + unapplied);
                assertThat(coveredAfter).as("the take-over's pass records the time of the change it applied").isNotNull();
                assertThat(coveredBefore == null || coveredAfter.compareTo(coveredBefore) > 0)
                    .as("covered %s after the take-over, %s before", coveredAfter, coveredBefore).isTrue();
                assertThat(a.rows("revenue-" + unapplied, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 15));
                assertThat(a.rows("revenue-" + applied, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 10));
            }
        }
        finally {
            b.close();
        }
    }

    @Test
    void anInstanceBackUnderItsIdDoesNotRunAgainTheChangesItsPartitionsInterimOwnerApplied(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        try (EngineFixture b = instance(mongo, clock, "node-b")) {
            String changed = ownedBy("node-a", "node-a", "node-b");
            String untouched = TENANTS.stream().filter(tenant -> !tenant.equals(changed)
                    && Rendezvous.owner(tenant, List.of("node-a", "node-b")).equals("node-a")).findFirst().orElseThrow();
            try (EngineFixture a = instance(mongo, clock, "node-a")) {
                startTwoAndSaveCheckpoints(a, b, clock, mongo);
            }
            // node-a left (its last checkpoints are before the change below): node-b takes its tenants
            clock.advance(b.options.partitionLease().dividedBy(3));
            awaitLive(b, "node-b");
            b.settle();
            int heard = b.events.changes.get();
            b.collection("orders").insertOne(order("while-down", changed, "fig", 2, 5));
            b.events.awaitChanges(heard + 1);
            b.settle();
            assertThat(b.rows("revenue-" + changed, "revenue")).containsExactly(row("apple", "revenue", 1),
                    row("fig", "revenue", 10));

            try (EngineFixture again = instance(mongo, clock, "node-a")) {
                again.start();
                // Its streams resume from its own checkpoints and hand the change over again
                again.events.awaitChanges(1);
                clock.advance(again.options.partitionLease().dividedBy(3));
                awaitLive(again, "node-a", "node-b");
                awaitLive(b, "node-a", "node-b");
                again.settle();
                b.settle();

                // node-b's status of the view covers the change: nothing runs a second time
                assertThat(again.events.passes).isEmpty();
                assertThat(again.rows("revenue-" + changed, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 10));

                // A change after the return is the returning owner's to run
                heard = again.events.changes.get();
                again.collection("orders").insertOne(order("after", untouched, "fig", 1, 3));
                again.events.awaitChanges(heard + 1);
                again.settle();
                assertThat(again.events.passes).extracting(report -> report.view().partition()).containsOnly(untouched);
                assertThat(again.rows("revenue-" + untouched, "revenue")).containsExactly(row("apple", "revenue", 1),
                        row("fig", "revenue", 3));
            }
        }
    }

    @Test
    void aPartitionTakenOverInAClusterWhoseStreamsStartedFromNowRunsOnlyWhatItsPreviousOwnerDidNotApply(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        EngineFixture b = instance(mongo, clock, "node-b");
        try {
            String unapplied = ownedBy("node-a", "node-a", "node-b");
            try (EngineFixture a = instance(mongo, clock, "node-a")) {
                // A new cluster: no checkpoint of orders when the streams open, so both start from now
                startTwoAndSaveCheckpoints(a, b, clock, mongo);
                // node-a stops having heard a change of one of its tenants, before its pass (a stop runs no pass)
                int heardByA = a.events.changes.get();
                int heardByB = b.events.changes.get();
                a.collection("orders").insertOne(order("unapplied", unapplied, "fig", 3, 5));
                a.events.awaitChanges(heardByA + 1);
                b.events.awaitChanges(heardByB + 1);
                b.events.clear();
            }
            // node-b takes node-a's tenants at its next beat: node-a's checkpoint, at or after where node-b's
            // stream started, answers for them; node-b heard every change after it
            clock.advance(b.options.partitionLease().dividedBy(3));
            awaitLive(b, "node-b");
            b.settle();

            assertThat(b.events.passes).extracting(report -> report.view().partition()).containsOnly(unapplied);
            assertThat(b.rows("revenue-" + unapplied, "revenue")).containsExactly(row("apple", "revenue", 1),
                    row("fig", "revenue", 15));
        }
        finally {
            b.close();
        }
    }

    @Test
    void aTakeOverIsInTheCheckpointsOnceItsPassesAreDoneNotAnIntervalLater(TestMongo mongo) {
        ManualClock clock = new ManualClock();
        // A beat every 3 s: the take-over below ends within the checkpoint interval (5 s) of the last save
        Duration lease = Duration.ofSeconds(9);
        EngineFixture b = instance(mongo, clock, "node-b", lease);
        try (EngineFixture a = instance(mongo, clock, "node-a", lease)) {
            startTwoAndSaveCheckpoints(a, b, clock, mongo);
            awaitCheckpointSince(mongo, "node-a", clock.now());
            b.close();

            // node-b's heartbeat is gone: node-a takes its tenants at its next beat, their passes end
            clock.advance(lease.dividedBy(3));
            awaitLive(a, "node-a");
            clock.advance(Duration.ofMillis(500));
            a.drain();

            // With no more time on the clock, node-a's checkpoint answers for the tenants it took: a
            // restart right now resumes from it without catching them up
            await().atMost(RecordingListener.WAIT).untilAsserted(() -> {
                Document saved = checkpointOf(mongo, "node-a");
                assertThat(saved.getList("live", String.class)).containsExactly("node-a");
                assertThat(saved.getList("pending", String.class)).isEmpty();
            });
        }
        finally {
            b.close();
        }
    }

    @Test
    void changesHeardBetweenStopIntakeAndCloseRunAfterTheRestart(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.engine.stopIntake();
            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 4));
            f.events.awaitChanges(1);
            assertThat(f.engine.drain(Duration.ofSeconds(10))).isTrue();
        }
        try (EngineFixture after = new EngineFixture(mongo)) {
            after.start();
            assertThat(after.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1),
                    row("pear", "revenue", 4));
        }
    }

    @Test
    void aViewWithABlankSourceFieldIsRefusedAndEveryOtherTenantKeepsItsChanges(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.views().insertOne(new Document("_id", "broken").append("_part", "globex")
                .append("collections", List.of("orders"))
                .append("pipeline", List.of(Document.parse(REVENUE)))
                .append("targetCollection", "revenue")
                .append("sourceFields", new Document("orders", List.of(" "))));
            f.start();

            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 4));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 4));
            assertThat(f.status("broken").getString("state")).isEqualTo("errored");
            assertThat(f.status("broken").getString("lastError")).contains("sourceFields.orders[0]");
        }
    }

    @Test
    void aNewcomerWritingTheTargetOfAnEstablishedViewIsRefusedAndTheEstablishedViewRunsOn(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1));

            f.defineView("also-revenue", "acme", List.of("orders"), "revenue",
                    "{\"$group\": {\"_id\": \"$customer\", \"n\": {\"$sum\": 1}}}");
            f.awaitStatus("also-revenue", "errored");
            f.settle();

            assertThat(f.status("also-revenue").getString("lastError")).as("names the view that holds the target")
                .contains("target 'revenue'").contains("view 'revenue'").contains("targetCollection of its own");
            assertThat(f.engine.view("acme", "also-revenue")).as("stored as errored, shown as itself")
                .hasValueSatisfying(view -> assertThat(view.state()).isEqualTo(ViewState.TARGET_SHARED));
            assertThat(f.engine.viewCounts()).containsEntry(ViewState.TARGET_SHARED, 1).containsEntry(ViewState.ERRORED, 0);
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 4));
            f.events.awaitChanges(1);
            f.settle();
            assertThat(f.rows("revenue", "revenue")).as("the established view applies changes")
                .containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 4));
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");

            f.views().deleteOne(Filters.eq("_id", "also-revenue"));
            await().atMost(RecordingListener.WAIT).until(() -> f.engine.view("acme", "also-revenue").isEmpty());
            f.settle();
            assertThat(f.db.getCollection("revenue").countDocuments(Filters.exists("n")))
                .as("no row of the newcomer ever reached the target").isZero();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 4));
        }
        try (EngineFixture again = new EngineFixture(mongo)) {
            again.defineView("also-revenue", "acme", List.of("orders"), "revenue",
                    "{\"$group\": {\"_id\": \"$customer\", \"n\": {\"$sum\": 1}}}");
            again.start();
            assertThat(again.status("revenue").getString("state")).as("after a restart too").isEqualTo("ok");
            assertThat(again.status("also-revenue").getString("state")).isEqualTo("errored");
            assertThat(again.status("also-revenue").getString("lastError")).contains("view 'revenue'");
        }
    }

    @Test
    void twoNewViewsOfOnePartitionWritingOneTargetAreBothRefusedNamingBothUntilOneGoes(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.defineView("also-revenue", "acme", List.of("orders"), "revenue",
                    "{\"$group\": {\"_id\": \"$customer\", \"n\": {\"$sum\": 1}}}");
            f.start();

            for (String id : List.of("revenue", "also-revenue")) {
                assertThat(f.status(id).getString("state")).as(id).isEqualTo("errored");
                assertThat(f.status(id).getString("lastError")).as(id).contains("'revenue'").contains("'also-revenue'")
                    .contains("target 'revenue'");
            }
            assertThat(f.db.getCollection("revenue").countDocuments()).as("neither wrote").isZero();

            f.views().deleteOne(Filters.eq("_id", "also-revenue"));
            f.awaitStatus("revenue", "ok");
            f.settle();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1));
        }
    }

    @Test
    void aPassThatGaveWayBeforeAStopRunsAfterTheRestart(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            // Another instance's pass holds the view: the next pass gives way and waits for its retry.
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.combine(
                    Updates.set(f.options.statusField() + ".lease.owner", "someone-else"),
                    Updates.set(f.options.statusField() + ".lease.generation", new org.bson.types.ObjectId()),
                    Updates.set(f.options.statusField() + ".lease.until", java.util.Date.from(Instant.now().plusSeconds(3600)))));
            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 4));
            f.events.awaitChanges(1);
            f.clock.advance(EngineFixture.DEBOUNCE);
            f.events.awaitPass(RecordingListener.of("acme", "revenue", PassOutcome.SUPERSEDED));
            f.drain();
            f.views().updateOne(Filters.eq("_id", "revenue"), Updates.unset(f.options.statusField() + ".lease"));
        }
        try (EngineFixture after = new EngineFixture(mongo)) {
            after.start();
            assertThat(after.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1),
                    row("pear", "revenue", 4));
        }
    }

    @Test
    void aViewThatThrowsSomethingOtherThanAMongoFailureIsErroredAndTheRestOfItsPassRuns(TestMongo mongo) {
        PartitionTargetId standard = PartitionTargetId.INSTANCE;
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.targetId((BsonValue rowId, String partition,
                org.bson.types.ObjectId generation) -> {
            if (rowId.isString() && rowId.asString().getValue().equals("poison")) {
                throw new IllegalArgumentException("no target id for a poison row");
            }
            return standard.targetId(rowId, partition, generation);
        }))) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("a-first", "acme", List.of("orders"), "first", REVENUE);
            f.defineView("b-second", "acme", List.of("orders"), "second", REVENUE);
            f.start();

            f.collection("orders").insertOne(order("o2", "acme", "poison", 1, 4));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.status("a-first").getString("state")).isEqualTo("errored");
            assertThat(f.status("a-first").getString("lastError")).contains("no target id for a poison row");
            assertThat(f.status("b-second").getString("state")).isEqualTo("errored");
            f.collection("orders").deleteOne(Filters.eq("_id", "o2"));
            f.events.awaitChanges(2);
            f.settle();
            assertThat(f.rows("a-first", "first")).containsExactly(row("apple", "revenue", 1));
            assertThat(f.rows("b-second", "second")).containsExactly(row("apple", "revenue", 1));
        }
    }

    @Test
    void anIllegalStateExceptionOfTheWriterIsTheViewsErrorNotARetryWithoutEnd(TestMongo mongo) {
        PartitionTargetId standard = PartitionTargetId.INSTANCE;
        // Thrown only as the rows are written: the first row a pass adds ("banana") passes the strategy check.
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.targetId((BsonValue rowId, String partition,
                org.bson.types.ObjectId generation) -> {
            if (rowId.isString() && rowId.asString().getValue().equals("poison")) {
                throw new IllegalStateException("a strategy bug at a poison row");
            }
            return standard.targetId(rowId, partition, generation);
        }))) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.collection("orders").insertMany(List.of(order("o2", "acme", "banana", 1, 2), order("o3", "acme", "poison", 1, 4)));
            f.events.awaitChanges(2);
            f.settle();

            assertThat(f.status("revenue").getString("state")).isEqualTo("errored");
            assertThat(f.status("revenue").getString("lastError")).contains("a strategy bug at a poison row");
            assertNoRetryOf(f, "revenue");
            assertThat(f.rows("revenue", "revenue")).as("readers keep the generation before")
                .containsExactly(row("apple", "revenue", 1));
        }
    }

    @Test
    void aMongoFailureOfTheDeploymentIsRetriedAndTheViewIsNeverErroredForIt(TestMongo mongo) {
        PartitionTargetId standard = PartitionTargetId.INSTANCE;
        java.util.concurrent.atomic.AtomicBoolean cut = new java.util.concurrent.atomic.AtomicBoolean();
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.targetId((BsonValue rowId, String partition,
                org.bson.types.ObjectId generation) -> {
            if (cut.get()) {
                throw new com.mongodb.MongoSocketReadException("the connection was cut (test)",
                        new com.mongodb.ServerAddress());
            }
            return standard.targetId(rowId, partition, generation);
        }))) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            cut.set(true);

            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 4));
            f.events.awaitChanges(1);
            f.clock.advance(EngineFixture.DEBOUNCE);
            f.events.awaitPass(RecordingListener.of("acme", "revenue", PassOutcome.SUPERSEDED));
            f.drain();

            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
            assertThat(EngineProbe.quiescence(f.engine, System.nanoTime()).backlog().dirty())
                .as("the view runs again").contains("acme");
            cut.set(false);
            f.settle();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 4));
            assertThat(f.status("revenue").getString("state")).isEqualTo("ok");
        }
    }

    @Test
    void aMongoFailureThatIsNotTheDeploymentsIsTheViewsError(TestMongo mongo) {
        PartitionTargetId standard = PartitionTargetId.INSTANCE;
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.targetId((BsonValue rowId, String partition,
                org.bson.types.ObjectId generation) -> {
            if (rowId.isString() && rowId.asString().getValue().equals("poison")) {
                // A command the server refused for what it was asked (BadValue): no retry makes it pass.
                throw new com.mongodb.MongoCommandException(org.bson.BsonDocument.parse(
                        "{ok: 0, code: 2, codeName: 'BadValue', errmsg: 'refused for a poison row'}"),
                        new com.mongodb.ServerAddress());
            }
            return standard.targetId(rowId, partition, generation);
        }))) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();

            f.collection("orders").insertOne(order("o2", "acme", "poison", 1, 4));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.status("revenue").getString("state")).isEqualTo("errored");
            assertThat(f.status("revenue").getString("lastError")).contains("refused for a poison row");
            assertNoRetryOf(f, "revenue");
        }
    }

    /** The errored view is not run again by itself: no mark is left, and time passing runs nothing. */
    /** The time up to which a view's stored status says it applied every change of orders. */
    private static @Nullable BsonTimestamp coveredOfOrders(EngineFixture f, String viewId) {
        BsonDocument view = f.views().withDocumentClass(BsonDocument.class).find(Filters.eq("_id", viewId)).first();
        return view == null ? null : CoveredTimes.of(view.getDocument(f.options.statusField(), new BsonDocument()), "orders");
    }

    private static void assertNoRetryOf(EngineFixture f, String viewId) {
        int passes = f.events.passesOf("acme", viewId).size();
        f.clock.advance(f.options.rewatch().multipliedBy(10));
        f.settle();
        assertThat(f.events.passesOf("acme", viewId)).as("passes after the error").hasSize(passes);
        assertThat(EngineProbe.quiescence(f.engine, System.nanoTime()).backlog().isEmpty()).as("nothing left to run")
            .isTrue();
    }

    @Test
    void closeAfterTheClientDiedEndsEveryPartAndDoesNotThrow(TestMongo mongo) {
        MongoClient own = MongoClients.create(mongo.connectionString());
        ManualClock clock = new ManualClock();
        own.getDatabase(mongo.database().getName()).getCollection("orders")
            .insertOne(order("o1", "acme", "apple", 1, 1));
        EngineFixture probe = new EngineFixture(mongo, clock, builder -> builder);
        probe.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
        ViewMaterializer engine = new ViewMaterializer(own, mongo.database().getName(),
                MaterializerOptions.builder().clock(clock).debounce(EngineFixture.DEBOUNCE).build());
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        engine.start();
        await().atMost(RecordingListener.WAIT).until(() -> engine.snapshot().state() == EngineState.RUNNING);

        own.close();

        assertThatCode(engine::close).doesNotThrowAnyException();
        assertThat(engine.snapshot().state()).isEqualTo(EngineState.STOPPED);
        await().atMost(RecordingListener.WAIT).until(() -> Thread.getAllStackTraces().keySet().stream()
            .noneMatch(thread -> !before.contains(thread) && thread.getName().startsWith("materializer-stream-")));
        clock.advance(Duration.ofMinutes(5));
        assertThat(clock.pendingTimers()).as("no stream waits to reopen").isZero();
    }

    @Test
    void viewIdsOfDifferentTypesAreDifferentViews(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.views().insertOne(new Document("_id", "1").append("_part", "acme").append("collections", List.of("orders"))
                .append("pipeline", List.of(Document.parse(REVENUE))).append("targetCollection", "by-string"));
            f.views().insertOne(new Document("_id", 1).append("_part", "acme").append("collections", List.of("orders"))
                .append("pipeline", List.of(Document.parse(REVENUE))).append("targetCollection", "by-number"));
            f.start();

            List<ViewSnapshot> views = f.engine.snapshot().views();
            assertThat(views).extracting(ViewSnapshot::id).containsExactlyInAnyOrder("\"1\"", "1");
            assertThat(views).extracting(ViewSnapshot::state).containsOnly(ViewState.OK);
            assertThat(f.db.getCollection("by-string").countDocuments()).isEqualTo(1);
            assertThat(f.db.getCollection("by-number").countDocuments()).isEqualTo(1);
        }
    }

    @Test
    void aStatusPutBackAfterASaveNamesTheGenerationAnotherInstanceFlippedWithTheOnesBeforeIt(TestMongo mongo)
            throws Exception {
        ManualClock clock = new ManualClock();
        try (EngineFixture b = instance(mongo, clock, "node-b"); EngineFixture a = instance(mongo, clock, "node-a")) {
            String tenant = ownedBy("node-a", "node-a", "node-b");
            String view = "revenue-" + tenant;
            a.collection("orders").insertOne(order("o1", tenant, "apple", 1, 1));
            a.defineView(view, tenant, List.of("orders"), "revenue", REVENUE);
            a.start();
            b.start();
            clock.advance(a.options.partitionLease().dividedBy(3));
            awaitLive(a, "node-a", "node-b");
            awaitLive(b, "node-a", "node-b");
            a.settle();

            // A refresh asked for on node-b flips the view there; node-a's own pass then finds it unchanged
            a.collection("orders").insertOne(order("o2", tenant, "pear", 1, 4));
            a.events.awaitChanges(1);
            assertThat(b.engine.refresh(tenant, view).get(10, java.util.concurrent.TimeUnit.SECONDS).outcome())
                .isEqualTo(PassOutcome.CHANGED);
            a.settle();
            assertThat(a.engine.awaitIdle(RecordingListener.WAIT)).isTrue();
            org.bson.Document before = a.status(view);

            // A Spring Data save() of the unchanged definition: the status field is gone
            org.bson.Document replaced = a.viewDocument(view);
            replaced.remove(a.options.statusField());
            a.views().replaceOne(Filters.eq("_id", view), replaced);
            await().atMost(RecordingListener.WAIT).until(() -> a.status(view).get("generation") != null);

            assertThat(a.status(view).get("generation")).as("the generation readers last saw")
                .isEqualTo(before.get("generation"));
            assertThat(a.status(view).get("previous")).as("its readers keep their grace").isEqualTo(before.get("previous"));
            assertThat(a.rows(view, "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 4));
        }
    }

    private static EngineFixture instance(TestMongo mongo, ManualClock clock, String id) {
        return new EngineFixture(mongo, clock, builder -> builder.instanceId(id));
    }

    private static EngineFixture instance(TestMongo mongo, ManualClock clock, String id, Duration partitionLease) {
        return new EngineFixture(mongo, clock, builder -> builder.instanceId(id).partitionLease(partitionLease));
    }

    /**
     * Seeds the tenants, starts node-a and node-b, lets each see the other live, makes an event in
     * every tenant and saves both instances' checkpoints past it.
     */
    private static void startTwoAndSaveCheckpoints(EngineFixture a, EngineFixture b, ManualClock clock, TestMongo mongo) {
        seed(a);
        a.start();
        b.start();
        clock.advance(a.options.partitionLease().dividedBy(3));
        awaitLive(a, "node-a", "node-b");
        awaitLive(b, "node-a", "node-b");
        touchEveryTenant(a);
        a.settle();
        b.settle();
        saveCheckpoints(clock, mongo);
    }

    /** One revenue view per tenant, each with one order. */
    private static void seed(EngineFixture f) {
        List<Document> orders = new ArrayList<>();
        for (String tenant : TENANTS) {
            orders.add(order("o-" + tenant, tenant, "apple", 1, 1));
            f.defineView("revenue-" + tenant, tenant, List.of("orders"), "revenue", REVENUE);
        }
        f.collection("orders").insertMany(orders);
    }

    /** An event in every tenant that changes no result, so every stream has a token of an event to save. */
    private static void touchEveryTenant(EngineFixture f) {
        int heard = f.events.changes.get();
        f.collection("orders").updateMany(Filters.exists("_part"), Updates.set("seen", true));
        f.events.awaitChanges(heard + TENANTS.size());
    }

    /** Moves the clock past the checkpoint interval and waits until every open stream saved after it. */
    private static void saveCheckpoints(ManualClock clock, TestMongo mongo) {
        clock.advance(Duration.ofSeconds(6));
        long now = clock.now().toEpochMilli();
        await().atMost(RecordingListener.WAIT).until(() -> mongo.database().getCollection(dev.materializer.core.MaterializerOptions.DEFAULT_CHECKPOINTS_COLLECTION)
            .countDocuments(Filters.and(Filters.eq("kind", "stream"), Filters.gte("at", new java.util.Date(now)))) > 0);
    }

    /** Waits until the instance has saved its checkpoint of orders at or after the moment. */
    private static void awaitCheckpointSince(TestMongo mongo, String instance, Instant since) {
        await().atMost(RecordingListener.WAIT).until(() -> {
            Document saved = checkpointOf(mongo, instance);
            return saved != null && !saved.getDate("at").toInstant().isBefore(since);
        });
    }

    /** The instance's checkpoint of orders; null when it has none. */
    private static Document checkpointOf(TestMongo mongo, String instance) {
        return mongo.database().getCollection(MaterializerOptions.DEFAULT_CHECKPOINTS_COLLECTION)
            .find(Filters.eq("_id", "stream:orders@" + instance)).first();
    }

    private static String ownedBy(String owner, String... live) {
        for (String tenant : TENANTS) {
            if (Rendezvous.owner(tenant, List.of(live)).equals(owner)) {
                return tenant;
            }
        }
        throw new AssertionError("no tenant of " + owner);
    }

    private static void awaitLive(EngineFixture instance, String... live) {
        await().atMost(RecordingListener.WAIT)
            .until(() -> EngineProbe.liveInstances(instance.engine).equals(java.util.Set.of(live)));
    }
}
