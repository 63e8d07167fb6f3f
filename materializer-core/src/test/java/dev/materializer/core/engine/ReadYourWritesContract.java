package dev.materializer.core.engine;

import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import dev.materializer.core.Materializer;
import dev.materializer.core.cluster.Rendezvous;
import dev.materializer.core.freshness.Freshness;
import dev.materializer.core.freshness.FreshnessWait;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.view.CoveredTimes;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.REVENUE;
import static dev.materializer.core.engine.MaterializerContract.order;
import static dev.materializer.core.engine.MaterializerContract.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Read-your-writes: {@link Materializer#awaitFresh} returns once the view reflects a write made
 * before it, on the instance that owns the partition and on one that does not. The engines run on
 * a manual clock, so no pass can run before the test moves it: a wait that returned before would
 * have returned too early.
 */
abstract class ReadYourWritesContract {

    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void aWriterWaitsUntilTheViewReflectsItsWrite(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(f.engine.awaitFresh("acme", "revenue", LONG)).as("nothing written since the start").isTrue();

            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "apple", 1, 4));
            CompletableFuture<Boolean> fresh = waitInTheBackground(f.engine, "acme", "revenue");
            heardEverything(f);

            assertThat(fresh).as("heard, but its pass waits for the debounce").isNotDone();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6));

            f.settle();
            assertThat(fresh.get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 10));
        }
    }

    @Test
    void aViewOverAViewIsFreshOnceTheViewItReadsHasRunBeforeIt(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.defineView("top", "acme", List.of("revenue"), "top",
                    "{\"$match\": {\"revenue\": {\"$gte\": 10}}}", "{\"$project\": {\"_id\": \"$_id.id\", \"revenue\": 1}}");
            f.start();
            assertThat(f.rows("top", "top")).isEmpty();

            f.collection("orders").insertOne(order("o2", "acme", "apple", 1, 4));
            CompletableFuture<Boolean> fresh = waitInTheBackground(f.engine, "acme", "top");
            heardEverything(f);
            assertThat(fresh).isNotDone();

            f.settle();
            assertThat(fresh.get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(f.rows("top", "top")).containsExactly(row("apple", "revenue", 10));
        }
    }

    @Test
    void anEngineIsIdleOnceEveryChangeOfEveryPartitionWrittenBeforeTheWaitIsApplied(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.defineView("revenue-acme", "acme", List.of("orders"), "revenue", REVENUE);
            f.defineView("revenue-globex", "globex", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(f.engine.awaitIdle(LONG)).isTrue();

            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 2, 3), order("o2", "globex", "fig", 1, 1)));
            CompletableFuture<Boolean> idle = inTheBackground(() -> f.engine.awaitIdle(LONG));
            heardEverything(f);
            assertThat(idle).as("two passes wait for their debounce").isNotDone();

            f.settle();
            assertThat(idle.get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(f.rows("revenue-acme", "revenue")).containsExactly(row("apple", "revenue", 6));
            assertThat(f.rows("revenue-globex", "revenue")).containsExactly(row("fig", "revenue", 1));
        }
    }

    @Test
    void aWaitForAViewInstalledJustBeforeWaitsUntilTheEngineReadAndRanIt(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.start();

            // A new view runs as soon as the engine reads it; the wait begins before it has
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            CompletableFuture<Boolean> fresh = waitInTheBackground(f.engine, "acme", "revenue");

            assertThat(fresh.get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6));
        }
    }

    @Test
    void aWaitForAnErroredViewEndsFalseAtItsTimeoutAndAnUnknownViewIsSaidSo(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("broken", "acme", List.of("orders"), "broken", "{\"$out\": \"elsewhere\"}");
            f.start();

            assertThat(f.engine.awaitFresh("acme", "broken", Duration.ofMillis(200))).isFalse();
            assertThatThrownBy(() -> f.engine.awaitFresh("acme", "nope", Duration.ofMillis(200)))
                .isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("knows no view 'nope' in partition 'acme'");
        }
    }

    @Test
    void anInstanceThatDoesNotOwnThePartitionWaitsForWhatTheOwnerRecordedInTheStatus(TestMongo mongo)
            throws Exception {
        ManualClock clock = new ManualClock();
        try (EngineFixture a = new EngineFixture(mongo, clock, builder -> builder.instanceId("node-a"));
                EngineFixture b = new EngineFixture(mongo, clock, builder -> builder.instanceId("node-b"))) {
            String tenant = IntStream.range(0, 100).mapToObj(p -> "t" + p)
                .filter(partition -> Rendezvous.owner(partition, List.of("node-a", "node-b")).equals("node-a"))
                .findFirst().orElseThrow();
            a.collection("orders").insertOne(order("o1", tenant, "apple", 2, 3));
            a.defineView("revenue", tenant, List.of("orders"), "revenue", REVENUE);
            a.start();
            b.start();
            clock.advance(a.options.partitionLease().dividedBy(3));
            await().atMost(RecordingListener.WAIT)
                .until(() -> EngineProbe.liveInstances(a.engine).equals(Set.of("node-a", "node-b"))
                        && EngineProbe.liveInstances(b.engine).equals(Set.of("node-a", "node-b")));
            a.settle();
            b.settle();

            BsonTimestamp written;
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> watch = a.collection("orders").watch().cursor()) {
                a.collection("orders").insertOne(order("o2", tenant, "apple", 1, 4));
                written = clusterTimeOfNext(watch);
            }
            CompletableFuture<Boolean> fresh = inTheBackground(() -> b.engine.awaitFresh(tenant, "revenue", "orders", written, LONG));
            heardEverything(a);
            heardEverything(b);
            assertThat(fresh).as("node-a's pass waits for the debounce").isNotDone();

            a.settle();
            assertThat(fresh.get(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(a.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 10));
            BsonDocument status = BsonDocument.parse(a.status("revenue").toJson());
            assertThat(CoveredTimes.of(status, "orders")).as("the owner recorded the time of the write").isEqualTo(written);
        }
    }

    @Test
    void aPassRunWhileThePartitionWasAnotherInstancesDoesNotMakeTheViewFreshAfterAFlap(TestMongo mongo)
            throws Exception {
        String tenant = IntStream.range(0, 100).mapToObj(p -> "t" + p)
            .filter(partition -> Rendezvous.owner(partition, List.of("node-a", "node-b")).equals("node-b"))
            .findFirst().orElseThrow();
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.instanceId("node-a"))) {
            f.collection("orders").insertOne(order("o1", tenant, "apple", 2, 3));
            f.defineView("revenue", tenant, List.of("orders"), "revenue", REVENUE);
            f.start();

            f.collection("orders").insertOne(order("o2", tenant, "apple", 1, 4));
            long since = System.nanoTime();
            FreshnessWait wait = EngineProbe.freshnessWait(f.engine, tenant, "revenue", since);
            heardSince(f, since);
            assertThat(wait.look()).as("heard; its pass waits for the debounce").isEqualTo(Freshness.WAITING);

            // A flap: node-b appears and takes the partition...
            beat(f, "node-b");
            EngineProbe.beat(f.engine);
            assertThat(wait.look()).isEqualTo(Freshness.NOT_OWNED);
            // ...so the pass node-a had marked leaves the change to node-b and applies nothing...
            f.clock.advance(EngineFixture.DEBOUNCE);
            f.drain();
            try (AutoCloseable lane = EngineProbe.occupyLane(f.engine, tenant)) {
                // ...and node-b goes before it ran anything: the partition comes back, its catch-up waits.
                leave(f, "node-b");
                EngineProbe.beat(f.engine);
                assertThat(wait.look()).as("the pass while not the owner applied nothing; the catch-up has not run")
                    .isEqualTo(Freshness.WAITING);
                assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6));
            }
            await().atMost(RecordingListener.WAIT).until(() -> wait.look() == Freshness.FRESH);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 10));
        }
    }

    @Test
    void aDefinitionChangeAcknowledgedBeforeTheWaitIsPartOfWhatTheViewMustReflect(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 2, 3), order("o2", "acme", "pear", 1, 5)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));

            String views = f.options.viewsCollection();
            try (EngineProbe.HeldStream lagging = EngineProbe.holdHandOver(f.engine, views)) {
                // Acknowledged, but the views stream has not handed it over: the engine runs the old definition.
                f.views().updateOne(Filters.eq("_id", "revenue"), Updates.set("pipeline",
                        List.of(Document.parse("{\"$match\": {\"product\": \"apple\"}}"), Document.parse(REVENUE))));
                lagging.awaitHeld();
                long since = System.nanoTime();
                FreshnessWait wait = EngineProbe.freshnessWait(f.engine, "acme", "revenue", since);
                // Every other stream heard that far: only the views stream lags.
                await().atMost(RecordingListener.WAIT)
                    .until(() -> EngineProbe.quiescence(f.engine, since).streamsBehind().equals(List.of(views)));
                assertThat(wait.look()).as("the new definition is not read yet").isEqualTo(Freshness.WAITING);

                lagging.release();
                await().atMost(RecordingListener.WAIT).until(() -> wait.look() == Freshness.FRESH);
            }
            assertThat(f.rows("revenue", "revenue")).as("fresh for the new definition")
                .containsExactly(row("apple", "revenue", 6));
        }
    }

    /** The heartbeat of an instance that does not run: the engine sees it live at its next beat. */
    private static void beat(EngineFixture f, String instance) {
        f.db.getCollection(f.options.checkpointsCollection()).updateOne(Filters.eq("_id", "instance:" + instance),
                Updates.combine(Updates.set("kind", "instance"), Updates.set("instance", instance),
                        Updates.set("ready", true), Updates.currentDate("beatAt")),
                new UpdateOptions().upsert(true));
    }

    private static void leave(EngineFixture f, String instance) {
        f.db.getCollection(f.options.checkpointsCollection()).deleteOne(Filters.eq("_id", "instance:" + instance));
    }

    /** Waits until every stream of the engine heard everything committed before a moment. */
    private static void heardSince(EngineFixture f, long since) {
        await().atMost(RecordingListener.WAIT).until(() -> EngineProbe.quiescence(f.engine, since).streamsBehind().isEmpty());
    }

    /**
     * Waits until the engine's streams heard everything written so far: a wait that returned before
     * the pass would have had its chance to by then.
     */
    private static void heardEverything(EngineFixture f) {
        long now = System.nanoTime();
        await().atMost(RecordingListener.WAIT).until(() -> EngineProbe.quiescence(f.engine, now).streamsBehind().isEmpty());
    }

    private static CompletableFuture<Boolean> waitInTheBackground(Materializer engine, String partition, String id) {
        return inTheBackground(() -> engine.awaitFresh(partition, id, LONG));
    }

    /** A wait of the engine's on another thread, so the test can move the clock meanwhile. */
    private static CompletableFuture<Boolean> inTheBackground(Wait wait) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return wait.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    private interface Wait {

        boolean await() throws InterruptedException;
    }

    private static BsonTimestamp clusterTimeOfNext(MongoChangeStreamCursor<ChangeStreamDocument<Document>> watch) {
        long until = System.nanoTime() + RecordingListener.WAIT.toNanos();
        while (System.nanoTime() < until) {
            ChangeStreamDocument<Document> event = watch.tryNext();
            if (event != null) {
                return event.getClusterTime();
            }
        }
        throw new AssertionError("the test's own stream heard no event");
    }
}
