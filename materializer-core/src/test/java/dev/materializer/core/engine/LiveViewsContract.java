package dev.materializer.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.LiveRows;
import dev.materializer.core.SnapshotReason;
import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewRow;
import dev.materializer.core.ViewRowsSnapshot;
import dev.materializer.core.ViewSubscription;
import dev.materializer.core.cluster.Rendezvous;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewFilter;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Subscriptions through the engine's public API: a subscriber that applies every delta to its
 * starting snapshot holds, after each flip, exactly the rows a reader reads through
 * {@link ViewFilter} at that generation — on the instance that owns the partition and on one that
 * does not, through restarts and handovers.
 */
abstract class LiveViewsContract {

    private static final String REVENUE = MaterializerContract.REVENUE;

    /** A view no key scopes: its passes run whole. */
    private static final String[] BEST = {REVENUE, "{\"$sort\": {\"revenue\": -1, \"_id\": 1}}", "{\"$limit\": 1}"};

    private static final List<String> PRODUCTS = List.of("apple", "pear", "fig", "kiwi", "plum");

    private static final Duration GRACE = Duration.ofMinutes(5);

    @Test
    void aSubscriberIsHandedTheRowsThenOneDeltaPerFlip(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo)) {
            f.collection("orders").insertOne(MaterializerContract.order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            Follower follower = new Follower(f, "acme", "revenue", "revenue");
            try (ViewSubscription subscription = f.engine.subscribe("acme", "revenue", follower)) {
                ViewRowsSnapshot start = follower.next(ViewRowsSnapshot.class);
                assertThat(start.reason()).isEqualTo(SnapshotReason.STARTED);
                assertThat(start.rows()).extracting(row -> row.id().asString().getValue()).containsExactly("apple");

                f.collection("orders").insertOne(MaterializerContract.order("o2", "acme", "pear", 1, 5));
                f.events.awaitChanges(1);
                f.settle();
                ViewDelta added = follower.next(ViewDelta.class);
                assertThat(added.added()).extracting(row -> row.document().get("revenue").asInt32().getValue())
                    .containsExactly(5);
                assertThat(added.changed()).isEmpty();

                f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.set("quantity", 4));
                f.events.awaitChanges(2);
                f.settle();
                ViewDelta changed = follower.next(ViewDelta.class);
                assertThat(changed.fromGeneration()).isEqualTo(added.toGeneration());
                assertThat(changed.changed()).singleElement().satisfies(change -> {
                    assertThat(change.before().document().get("revenue").asInt32().getValue()).isEqualTo(6);
                    assertThat(change.after().document().get("revenue").asInt32().getValue()).isEqualTo(12);
                });
                assertThat(subscription.generation()).isEqualTo(changed.toGeneration());
                follower.assertExact();
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aSubscriberHoldsExactlyWhatReadersReadAtEveryGenerationThroughRestartsAndHandovers(long seed, TestMongo mongo)
            throws Exception {
        Random random = new Random(seed);
        ManualClock clock = new ManualClock();
        String tenant = ownedByA();
        List<EngineFixture> engines = new ArrayList<>();
        Map<String, EngineFixture> live = new HashMap<>();
        List<Follower> followers = new ArrayList<>();
        Map<String, ViewSubscription> subscriptions = new HashMap<>();
        try {
            EngineFixture seedEngine = instance(mongo, clock, "node-a");
            engines.add(seedEngine);
            for (int i = 0; i < 6; i++) {
                write(seedEngine, tenant, random);
            }
            seedEngine.defineView("revenue", tenant, List.of("orders"), "revenue", REVENUE);
            seedEngine.defineView("best", tenant, List.of("orders"), "best", BEST);
            live.put("node-a", seedEngine.start());
            EngineFixture b = instance(mongo, clock, "node-b");
            engines.add(b);
            live.put("node-b", b.start());
            beat(clock, live);
            converge(live, tenant);

            // On each instance, a follower of each view: node-a owns the partition, node-b does not
            for (String node : List.of("node-a", "node-b")) {
                for (String view : List.of("revenue", "best")) {
                    Follower follower = new Follower(live.get(node), tenant, view, view);
                    followers.add(follower);
                    subscriptions.put(node + "/" + view, live.get(node).engine.subscribe(tenant, view, follower));
                }
            }

            int steps = 12 + random.nextInt(8);
            int restartAt = 3 + random.nextInt(4);
            int handOverAt = restartAt + 2 + random.nextInt(4);
            for (int step = 0; step < steps; step++) {
                int writes = 1 + random.nextInt(4);
                EngineFixture any = live.values().iterator().next();
                for (int i = 0; i < writes; i++) {
                    write(any, tenant, random);
                }
                converge(live, tenant);
                awaitFollowers(followers, any);
                if (step == restartAt) {
                    // node-b, which does not own the partition, restarts: its followers resume from where they stood
                    restart(mongo, clock, "node-b", live, engines, followers, subscriptions, tenant);
                }
                if (step == handOverAt) {
                    // node-a, the owner, stops: node-b takes the partition over, then node-a comes back and takes it back
                    restart(mongo, clock, "node-a", live, engines, followers, subscriptions, tenant);
                }
            }
            converge(live, tenant);
            awaitFollowers(followers, live.values().iterator().next());
            for (Follower follower : followers) {
                follower.assertExact();
            }
        }
        finally {
            subscriptions.values().forEach(ViewSubscription::close);
            engines.forEach(EngineFixture::close);
        }
    }

    /** Stops an instance, writes while it is down, starts it again, and resubscribes its followers. */
    private static void restart(TestMongo mongo, ManualClock clock, String node,
            Map<String, EngineFixture> live, List<EngineFixture> engines, List<Follower> followers,
            Map<String, ViewSubscription> subscriptions, String tenant) throws Exception {
        EngineFixture going = live.remove(node);
        going.close();
        List<Follower> resuming = followers.stream().filter(follower -> follower.host == going).toList();
        // A stopped instance's partitions move at the others' next beat
        beat(clock, live);
        EngineFixture other = live.values().iterator().next();
        other.collection("orders").insertOne(MaterializerContract.order("while-" + node + "-down", tenant, "fig", 1, 2));
        converge(live, tenant);

        EngineFixture back = instance(mongo, clock, node);
        engines.add(back);
        live.put(node, back.start());
        beat(clock, live);
        converge(live, tenant);
        for (Follower follower : resuming) {
            long from = subscriptions.get(node + "/" + follower.viewId).generation();
            follower.host = back;
            follower.forgetCalls();
            subscriptions.put(node + "/" + follower.viewId,
                    back.engine.subscribe(tenant, follower.viewId, from, follower));
            assertThat(follower.next()).as("resumed from %s", from).isEqualTo(from);
        }
    }

    private static EngineFixture instance(TestMongo mongo, ManualClock clock, String id) {
        return new EngineFixture(mongo, clock, builder -> builder.instanceId(id).generationGrace(GRACE));
    }

    /** A tenant node-a owns while node-b is live too. */
    private static String ownedByA() {
        for (int p = 0; ; p++) {
            if (Rendezvous.owner("t" + p, List.of("node-a", "node-b")).equals("node-a")) {
                return "t" + p;
            }
        }
    }

    private static void beat(ManualClock clock, Map<String, EngineFixture> live) {
        clock.advance(Duration.ofSeconds(30).dividedBy(3));
        await().atMost(RecordingListener.WAIT)
            .until(() -> live.values().stream().allMatch(f -> EngineProbe.liveInstances(f.engine).equals(live.keySet())));
    }

    /** Inserts, updates or deletes one order of the tenant. */
    private static void write(EngineFixture f, String tenant, Random random) {
        String id = "o" + random.nextInt(12);
        Document existing = f.collection("orders").find(Filters.eq("_id", id)).first();
        int roll = random.nextInt(3);
        if (existing == null) {
            f.collection("orders").insertOne(MaterializerContract.order(id, tenant,
                    PRODUCTS.get(random.nextInt(PRODUCTS.size())), 1 + random.nextInt(5), 1 + random.nextInt(9)));
        }
        else if (roll == 0) {
            f.collection("orders").deleteOne(Filters.eq("_id", id));
        }
        else {
            f.collection("orders").updateOne(Filters.eq("_id", id), Updates.set("quantity", 1 + random.nextInt(5)));
        }
    }

    /** Until the owner of the tenant reflects every write made before, with both views. */
    private static void converge(Map<String, EngineFixture> live, String tenant) throws InterruptedException {
        String owner = Rendezvous.owner(tenant, List.copyOf(new TreeSet<>(live.keySet())));
        EngineFixture f = live.get(owner);
        for (int round = 0; round < 60; round++) {
            live.values().forEach(EngineFixture::settle);
            if (f.engine.awaitFresh(tenant, "revenue", Duration.ofMillis(200))
                    && f.engine.awaitFresh(tenant, "best", Duration.ofMillis(200))) {
                return;
            }
        }
        throw new AssertionError("the views of " + tenant + " did not become fresh on " + owner + ": "
                + f.engine.view(tenant, "revenue") + " " + f.engine.view(tenant, "best") + "; caught up "
                + f.engine.caughtUp() + ", live " + EngineProbe.liveInstances(f.engine));
    }

    /** Until every follower stands at the generation its view's status names. */
    private static void awaitFollowers(List<Follower> followers, EngineFixture any) {
        for (Follower follower : followers) {
            await().atMost(RecordingListener.WAIT).untilAsserted(() -> assertThat(follower.generation())
                .as("%s on %s", follower.viewId, follower.host.options.instanceId())
                .isEqualTo(((Number) any.status(follower.viewId).get("generation")).longValue()));
        }
    }

    /**
     * A subscriber that keeps the rows and, after each snapshot and delta, compares them with what a
     * reader reads through the filter at that generation; it also checks the deltas chain.
     */
    static final class Follower extends LiveRows {

        private final RowHasher hasher = new RowHasher();

        private final String partition;

        final String viewId;

        private final String target;

        private volatile EngineFixture host;

        private final BlockingQueue<Object> calls = new LinkedBlockingQueue<>();

        private final List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

        /** Every generation it was handed whole or by delta. */
        private final Set<Long> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();

        private volatile long firstGeneration = -1;

        Follower(EngineFixture host, String partition, String viewId, String target) {
            this.host = host;
            this.partition = partition;
            this.viewId = viewId;
            this.target = target;
        }

        @Override
        public void onSnapshot(ViewRowsSnapshot snapshot) {
            super.onSnapshot(snapshot);
            if (snapshot.reason() != SnapshotReason.STARTED) {
                failures.add("a snapshot where deltas were due: " + snapshot.reason() + " at " + snapshot.generation());
            }
            if (firstGeneration < 0) {
                firstGeneration = snapshot.generation();
            }
            check(snapshot.generation());
            calls.add(snapshot);
        }

        @Override
        public void onDelta(ViewDelta delta) {
            if (delta.fromGeneration() != generation()) {
                failures.add("a delta from " + delta.fromGeneration() + " to rows at " + generation());
            }
            super.onDelta(delta);
            check(delta.toGeneration());
            calls.add(delta);
        }

        @Override
        public void onResumed(long from) {
            super.onResumed(from);
            if (from != generation()) {
                failures.add("resumed from " + from + " while holding " + generation());
            }
            calls.add(from);
        }

        private void check(long generation) {
            seen.add(generation);
            Map<String, BsonDocument> read = new HashMap<>();
            if (generation > 0) {
                for (BsonDocument version : host.db.getCollection(target, BsonDocument.class)
                    .find(ViewFilter.of(host.options.partitionField(), partition, Generation.of(generation)))) {
                    read.put(hasher.idKey(version.get(ViewFilter.ROW_FIELD)), version);
                }
            }
            Map<String, BsonDocument> held = new HashMap<>();
            for (ViewRow row : rows()) {
                held.put(row.key(), row.document());
            }
            if (!held.equals(read)) {
                failures.add("at generation " + generation + " it holds " + held.values() + " where readers read "
                        + read.values());
            }
        }

        void forgetCalls() {
            calls.clear();
        }

        Object next() throws InterruptedException {
            Object call = calls.poll(RecordingListener.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (call == null) {
                throw new AssertionError("no call of the subscriber of " + viewId);
            }
            return call;
        }

        <T> T next(Class<T> type) throws InterruptedException {
            return type.cast(next());
        }

        /** Every check passed, and every generation that changed a row since its start was handed over. */
        void assertExact() {
            assertThat(failures).as("%s", viewId).isEmpty();
            Set<Long> numbers = new TreeSet<>();
            for (BsonDocument version : host.db.getCollection(target, BsonDocument.class)
                .find(Filters.eq(host.options.partitionField(), partition))) {
                long from = version.getInt64(ViewFilter.FROM_FIELD).getValue();
                long to = version.getInt64(ViewFilter.TO_FIELD).getValue();
                for (long number : new long[] {from, to}) {
                    if (number > firstGeneration && number <= generation()) {
                        numbers.add(number);
                    }
                }
            }
            assertThat(seen).as("no flip of %s skipped", viewId).containsAll(numbers);
        }
    }
}
