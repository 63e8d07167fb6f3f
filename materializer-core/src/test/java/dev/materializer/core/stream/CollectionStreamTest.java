package dev.materializer.core.stream;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;

import com.mongodb.client.MongoCollection;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TcpProxy;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@MongoTest(MongoKind.IN_PROCESS)
class CollectionStreamTest {

    // The history-lost case needs a server that checks tokens: see CollectionStreamHistoryLostTest.

    private static final Duration WAIT = Duration.ofSeconds(20);

    final ManualClock clock = new ManualClock();

    private final Recorder recorder = new Recorder();

    private CollectionStream stream(TestMongo mongo, CheckpointStore store) {
        return new CollectionStream(mongo.database(), "orders", false, store, recorder, clock, Duration.ofSeconds(1),
                Duration.ofSeconds(8), Duration.ZERO);
    }

    @Test
    void eventsReachTheListenerInOrder(TestMongo mongo) throws Exception {
        CheckpointStore store = new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of);
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        CollectionStream stream = stream(mongo, store);
        stream.start(WAIT);
        try {
            assertThat(stream.isOpen()).isTrue();
            assertThat(recorder.opened).containsExactly("fresh");

            orders.insertOne(new Document("_id", "o1").append("_part", "acme"));
            orders.insertOne(new Document("_id", "o2").append("_part", "globex"));

            await().atMost(WAIT).until(() -> recorder.changes.size() == 2);
            assertThat(recorder.changes).extracting(change -> change.documentId().asString().getValue())
                .containsExactly("o1", "o2");
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
        assertThat(stream.isOpen()).isFalse();
    }

    @Test
    void aStreamResumesFromItsCheckpointAndSeesWhatHappenedWhileClosed(TestMongo mongo) throws Exception {
        CheckpointStore store = new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of);
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        CollectionStream first = stream(mongo, store);
        first.start(WAIT);
        orders.insertOne(new Document("_id", "o1").append("_part", "acme"));
        await().atMost(WAIT).until(() -> recorder.changes.size() == 1);
        recorder.pending = Set.of("acme");
        first.close();
        first.awaitClosed(WAIT);
        assertThat(store.load("orders").token()).isNotNull();
        assertThat(store.load("orders").pending()).containsExactly("acme");

        orders.insertOne(new Document("_id", "while-down").append("_part", "globex"));
        Recorder second = new Recorder();
        CollectionStream again = new CollectionStream(mongo.database(), "orders", false, store, second, clock,
                Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO);
        again.start(WAIT);
        try {
            await().atMost(WAIT).until(() -> !second.changes.isEmpty());
            assertThat(second.opened).containsExactly("resumed pending=[acme]");
            assertThat(second.changes.get(0).documentId().asString().getValue()).isEqualTo("while-down");
        }
        finally {
            again.close();
            again.awaitClosed(WAIT);
        }
    }

    @Test
    void aFirstOpenThatFailsBeforeItsCursorOpenedHandsTheCheckpointToTheOpenThatSucceeds(TestMongo mongo) throws Exception {
        CheckpointStore store = new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of);
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        CollectionStream first = stream(mongo, store);
        first.start(WAIT);
        orders.insertOne(new Document("_id", "o1").append("_part", "acme"));
        await().atMost(WAIT).until(() -> recorder.changes.size() == 1);
        recorder.pending = Set.of("acme");
        first.close();
        first.awaitClosed(WAIT);
        assertThat(store.load("orders").pending()).containsExactly("acme");

        // The next start reaches MongoDB through a proxy that is cut: its first cursor fails to open.
        try (TcpProxy proxy = TcpProxy.start(mongo.connectionString().getHosts().get(0));
                MongoClient client = clientThrough(proxy)) {
            proxy.cut();
            Recorder second = new Recorder();
            CollectionStream again = new CollectionStream(client.getDatabase(mongo.database().getName()), "orders", false,
                    store, second, clock, Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO);
            again.start(WAIT);
            try {
                await().atMost(WAIT).until(() -> !second.ended.isEmpty() && clock.pendingTimers() > 0);
                assertThat(second.opened).as("no cursor opened, the listener heard of none").isEmpty();

                proxy.restore();
                await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                    clock.advance(Duration.ofSeconds(1));
                    return !second.opened.isEmpty();
                });
                assertThat(second.opened).as("the open the listener hears of first is handed the checkpoint")
                    .containsExactly("reopened resumed pending=[acme]");
            }
            finally {
                again.close();
                again.awaitClosed(WAIT);
            }
        }
    }

    /** A client through the proxy with short timeouts, so it fails fast while the proxy is cut. */
    private static MongoClient clientThrough(TcpProxy proxy) {
        return MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString("mongodb://" + proxy.address()))
            .applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(250, TimeUnit.MILLISECONDS))
            .applyToSocketSettings(socket -> socket.connectTimeout(250, TimeUnit.MILLISECONDS))
            .applyToServerSettings(server -> server.heartbeatFrequency(500, TimeUnit.MILLISECONDS)
                .minHeartbeatFrequency(100, TimeUnit.MILLISECONDS))
            .build());
    }

    @Test
    void anEventTheListenerCouldNotTakeIsHandedOverAgainBeforeAnyLaterEvent(TestMongo mongo) throws Exception {
        CheckpointStore store = new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of);
        recorder.failOn = "boom";
        CollectionStream stream = stream(mongo, store);
        stream.start(WAIT);
        try {
            MongoCollection<Document> orders = mongo.database().getCollection("orders");
            orders.insertOne(new Document("_id", "boom"));
            orders.insertOne(new Document("_id", "fine"));
            // The stream waits out its backoff on the clock before it hands the event over again.
            await().atMost(WAIT).until(() -> recorder.failures.get() == 1 && clock.pendingTimers() > 0);
            assertThat(recorder.changes).as("nothing past the event that was not taken").isEmpty();

            recorder.failOn = "";
            clock.advance(Duration.ofSeconds(1));
            await().atMost(WAIT).until(() -> recorder.changes.size() == 2);
            assertThat(recorder.changes).extracting(change -> change.documentId().asString().getValue())
                .containsExactly("boom", "fine");
            assertThat(stream.isOpen()).isTrue();
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
    }

    @Test
    void aStreamIsCaughtUpToAMomentOnceAPollAfterItFoundNothingMore(TestMongo mongo) throws Exception {
        CollectionStream stream = stream(mongo, new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of));
        long beforeStart = System.nanoTime();
        assertThat(stream.caughtUpSince(beforeStart)).as("not open yet").isFalse();
        stream.start(WAIT);
        try {
            await().atMost(WAIT).until(() -> stream.caughtUpSince(beforeStart));
            mongo.database().getCollection("orders").insertOne(new Document("_id", "o1").append("_part", "acme"));
            long afterTheWrite = System.nanoTime();

            await().atMost(WAIT).until(() -> stream.caughtUpSince(afterTheWrite));
            assertThat(recorder.changes).as("every event written before the moment was handed over").hasSize(1);
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
        assertThat(stream.caughtUpSince(beforeStart)).as("closed").isFalse();
    }

    @Test
    void aRoutingStreamWhereEventsAreNotSplitReadsThemProjectedToWhatRoutingNeeds(TestMongo mongo) throws Exception {
        CollectionStream stream = new CollectionStream(mongo.database(), "orders", false, "_part", null, recorder, clock,
                Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO);
        stream.start(WAIT);
        try {
            // The in-process server has no $changeStreamSplitLargeEvent (it says 5.0) but runs the projection.
            assertThat(stream.chosenPipeline()).isEqualTo(WatchPipeline.Kind.PROJECTED);
            mongo.database().getCollection("orders").insertOne(new Document("_id", "o1").append("_part", "acme")
                .append("product", "apple"));

            await().atMost(WAIT).until(() -> recorder.changes.size() == 1);
            SourceChange change = recorder.changes.get(0);
            assertThat(change.operation()).isEqualTo(SourceChange.Operation.INSERT);
            assertThat(change.documentId()).isEqualTo(new BsonString("o1"));
            assertThat(change.fullDocument()).isEqualTo(BsonDocument.parse("{_part: 'acme'}"));
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
    }

    @Test
    void aStreamWhoseListenerReadsWholeDocumentsIsNotProjected(TestMongo mongo) throws Exception {
        CollectionStream stream = stream(mongo, new CheckpointStore(mongo.database(), "_checkpoints", "this-instance", Set::of));
        stream.start(WAIT);
        try {
            assertThat(stream.chosenPipeline()).isEqualTo(WatchPipeline.Kind.PLAIN);
            mongo.database().getCollection("orders").insertOne(new Document("_id", "o1").append("_part", "acme")
                .append("product", "apple"));

            await().atMost(WAIT).until(() -> recorder.changes.size() == 1);
            assertThat(recorder.changes.get(0).fullDocument()).containsKey("product");
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
    }

    @Test
    void aProjectedStreamReopensWithTheKeyPathsOfAViewAddedSinceAfterItsLastEventLosingAndRepeatingNone(TestMongo mongo)
            throws Exception {
        java.util.concurrent.atomic.AtomicReference<Set<String>> kept = new java.util.concurrent.atomic.AtomicReference<>(
                Set.of("product"));
        CollectionStream stream = new CollectionStream(mongo.database(), "orders", false, "_part", kept::get, null,
                recorder, clock, Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO);
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        stream.start(WAIT);
        try {
            orders.insertOne(order("o1"));
            await().atMost(WAIT).until(() -> recorder.changes.size() == 1);
            // The listener holds o2 while a view keyed by customer registers and o3 is written
            recorder.holdOn("o2");
            orders.insertOne(order("o2"));
            recorder.held.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            kept.set(Set.of("product", "customer"));
            stream.keptPathsChanged();
            orders.insertOne(order("o3"));
            recorder.release.countDown();

            await().atMost(WAIT).until(() -> recorder.changes.size() >= 3);
            orders.insertOne(order("o4"));
            await().atMost(WAIT).until(() -> recorder.changes.size() >= 4);
            assertThat(recorder.changes).extracting(change -> change.documentId().asString().getValue())
                .as("each once, in order").containsExactly("o1", "o2", "o3", "o4");
            assertThat(recorder.changes.get(1).imagesCarry("customer")).as("o2 came through the old cursor").isFalse();
            assertThat(recorder.changes.get(2).imagesCarry("customer")).isTrue();
            assertThat(recorder.changes.get(2).fullDocument()).isEqualTo(BsonDocument.parse(
                    "{_part: 'acme', customer: 'ann', product: 'apple'}"));
            assertThat(recorder.opened).as("resumed from its own position: nothing to catch up")
                .containsExactly("fresh", "reopened resumed pending=[]");
            assertThat(recorder.ended).as("not an end").isEmpty();

            // Paths it keeps already (or fewer) do not reopen it
            kept.set(Set.of("customer"));
            stream.keptPathsChanged();
            orders.insertOne(order("o5"));
            await().atMost(WAIT).until(() -> recorder.changes.size() >= 5);
            assertThat(recorder.opened).hasSize(2);
        }
        finally {
            stream.close();
            stream.awaitClosed(WAIT);
        }
    }

    private static Document order(String id) {
        return new Document("_id", id).append("_part", "acme").append("product", "apple").append("customer", "ann")
            .append("amount", 3);
    }

    static final class Recorder implements StreamListener {

        final List<SourceChange> changes = new CopyOnWriteArrayList<>();

        final List<String> opened = new CopyOnWriteArrayList<>();

        final List<String> ended = new CopyOnWriteArrayList<>();

        volatile Set<String> pending = Set.of();

        volatile String failOn = "";

        final java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();

        /** The id of the document whose event the listener holds until {@link #release}; none when empty. */
        volatile String holdOn = "";

        final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);

        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

        void holdOn(String id) {
            holdOn = id;
        }

        @Override
        public void onChange(String collection, SourceChange change) {
            if (change.documentId() != null && change.documentId().isString()
                    && change.documentId().asString().getValue().equals(holdOn)) {
                held.countDown();
                try {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            if (change.documentId() != null && change.documentId().isString()
                    && change.documentId().asString().getValue().equals(failOn)) {
                failures.incrementAndGet();
                throw new IllegalStateException("listener failure");
            }
            changes.add(change);
        }

        @Override
        public void onOpened(String collection, boolean resumed, boolean reopened, Checkpoint from) {
            opened.add((reopened ? "reopened " : "") + (resumed ? "resumed pending=" + from.pending() : "fresh"));
        }

        @Override
        public void onEnded(String collection, String reason, boolean historyLost) {
            ended.add((historyLost ? "history lost: " : "") + reason);
        }

        @Override
        public Checkpoint checkpointAt(String collection, BsonDocument token) {
            return Checkpoint.at(token, pending, Set.of());
        }
    }
}
