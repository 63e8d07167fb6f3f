package dev.materializer.core.engine;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.REVENUE;
import static dev.materializer.core.engine.MaterializerContract.order;
import static dev.materializer.core.engine.MaterializerContract.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The reconciler end to end: it finds drift nobody marked, heals it, and costs no write when in sync. */
abstract class ReconcileContract {

    private static final Duration INTERVAL = Duration.ofHours(1);

    @Test
    void aRowChangedBehindTheEnginesBackIsFoundAsDriftAndHealedByTheNextRound(TestMongo mongo) {
        Drifts drifts = new Drifts();
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.reconcileInterval(INTERVAL)
            .reconcileMaxPerSecond(10).listener(drifts))) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 4)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            // Drift: a row of the current generation removed by hand, which no change event marks.
            f.db.getCollection("revenue").deleteOne(Filters.eq("_id.id", "pear"));
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1));

            f.clock.advance(INTERVAL);
            await().atMost(RecordingListener.WAIT).until(() -> !drifts.reports.isEmpty());
            f.drain();

            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 4));
            assertThat(drifts.reports.get(0).missing()).isEqualTo(1);
            assertThat(drifts.drift.get()).as("drift reported").isEqualTo(1);
            Document reconcile = f.status("revenue").get("reconcile", Document.class);
            assertThat(reconcile.get("at")).isNotNull();
            assertThat(reconcile.get("drift", Document.class).get("missing")).isEqualTo(1L);
            ViewSnapshot view = f.engine.view("acme", "revenue").orElseThrow();
            assertThat(view.lastReconciled()).isNotNull();
            assertThat(view.driftRows()).isEqualTo(1);
            assertThat(f.engine.snapshot().reconcile().round()).isEqualTo(1);
        }
    }

    @Test
    void aRowEditedByHandWhoseStoredHashStillMatchesIsFoundAndRewritten(TestMongo mongo) {
        Drifts drifts = new Drifts();
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.reconcileInterval(INTERVAL)
            .reconcileMaxPerSecond(10).listener(drifts))) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 4)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            f.db.getCollection("revenue").updateOne(Filters.eq("_id.id", "apple"),
                    new Document("$set", new Document("revenue", 100)));

            f.clock.advance(INTERVAL);
            await().atMost(RecordingListener.WAIT).until(() -> !drifts.reports.isEmpty());
            f.drain();

            assertThat(drifts.reports.get(0).changed()).isEqualTo(1);
            assertThat(drifts.drift.get()).as("no change pending, every stream caught up: drift").isEqualTo(1);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 4));
        }
    }

    @Test
    void aDifferenceMadeByAChangeTheStreamHadNotHandedOverYetIsLagNotDrift(TestMongo mongo) throws Exception {
        Drifts drifts = new Drifts();
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.reconcileInterval(INTERVAL)
            .reconcileMaxPerSecond(10).listener(drifts))) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 4)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            try (EngineProbe.HeldStream lagging = EngineProbe.holdHandOver(f.engine, "orders")) {
                // Committed, but the stream has not handed it over: nothing is marked, the partition is not busy.
                f.collection("orders").insertOne(order("o3", "acme", "pear", 1, 5));
                lagging.awaitHeld();
                // The stream hands it over only once the reconciler's verify has seen it, while the view heals.
                drifts.onPassStarted = lagging::release;

                f.clock.advance(INTERVAL);
                await().atMost(RecordingListener.WAIT).until(() -> !drifts.reports.isEmpty());
            }
            f.drain();

            assertThat(drifts.reports.get(0).changed()).as("the verify saw the change").isEqualTo(1);
            assertThat(drifts.drift.get()).as("a change the stream had not handed over is lag, not drift").isZero();
            assertThat(f.status("revenue").get("reconcile", Document.class).get("drift")).isNull();
            assertThat(f.engine.view("acme", "revenue").orElseThrow().driftRows()).isZero();
            assertThat(f.rows("revenue", "revenue")).as("healed all the same")
                .containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 9));
            f.settle();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 9));
        }
    }

    @Test
    void reconcilingAnInSyncViewWritesNoRowAndReportsNoDrift(TestMongo mongo) throws Exception {
        Map<String, AtomicLong> commands = new ConcurrentHashMap<>();
        CommandListener counting = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                String name = event.getCommandName();
                if (name.equals("update") || name.equals("insert") || name.equals("delete")) {
                    name = name + " " + event.getCommand().getString(name).getValue();
                }
                commands.computeIfAbsent(name, key -> new AtomicLong()).incrementAndGet();
            }
        };
        ManualClock clock = new ManualClock();
        Drifts drifts = new Drifts();
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(mongo.connectionString()).addCommandListener(counting).build());
        EngineFixture setUp = new EngineFixture(mongo, clock, builder -> builder);
        setUp.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 4)));
        setUp.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
        try (client; ViewMaterializer engine = new ViewMaterializer(client, mongo.database().getName(),
                MaterializerOptions.builder().clock(clock).debounce(EngineFixture.DEBOUNCE).reconcileInterval(INTERVAL)
                    .reconcileMaxPerSecond(10).listener(drifts).build())) {
            engine.start();
            await().atMost(RecordingListener.WAIT).until(() -> engine.view("acme", "revenue")
                .map(view -> view.state() == ViewState.OK).orElse(false));
            assertThat(engine.drain(RecordingListener.WAIT)).isTrue();
            // The sweep after the first generation's grace runs first, so only the reconcile is counted.
            clock.advance(MaterializerOptions.DEFAULT_GENERATION_GRACE.plusSeconds(1));
            assertThat(engine.drain(RecordingListener.WAIT)).isTrue();
            long generations = setUp.db.getCollection("revenue").countDocuments();
            commands.clear();

            clock.advance(INTERVAL.minus(MaterializerOptions.DEFAULT_GENERATION_GRACE.plusSeconds(1)));
            await().atMost(RecordingListener.WAIT).until(() -> !drifts.reports.isEmpty());
            assertThat(engine.drain(RecordingListener.WAIT)).isTrue();

            assertThat(drifts.reports.get(0).inSync()).isTrue();
            assertThat(drifts.drift.get()).isZero();
            long rowWrites = commands.entrySet().stream()
                .filter(entry -> entry.getKey().endsWith(" revenue"))
                .mapToLong(entry -> entry.getValue().get()).sum();
            long sent = commands.values().stream().mapToLong(AtomicLong::get).sum();
            System.out.printf("Reconcile of an in-sync view of 2 rows: %d command(s) %s, row writes %d%n", sent,
                    new java.util.TreeMap<>(commands), rowWrites);
            assertThat(rowWrites).as("no write to the target").isZero();
            assertThat(setUp.db.getCollection("revenue").countDocuments()).isEqualTo(generations);
        }
    }

    @Test
    void verifyComparesWithoutWriting(TestMongo mongo) throws Exception {
        try (EngineFixture f = new EngineFixture(mongo, builder -> builder.reconcileInterval(Duration.ZERO))) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 4)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(f.engine.verify("acme", "revenue").get(20, TimeUnit.SECONDS).inSync()).isTrue();

            f.db.getCollection("revenue").updateOne(Filters.eq("_id.id", "apple"),
                    new Document("$set", new Document("revenue", 100)));
            f.db.getCollection("revenue").deleteOne(Filters.eq("_id.id", "pear"));
            VerifyReport report = f.engine.verify("acme", "revenue").get(20, TimeUnit.SECONDS);

            assertThat(report.changed()).isEqualTo(1);
            assertThat(report.missing()).isEqualTo(1);
            assertThat(report.extra()).isZero();
            assertThat(f.rows("revenue", "revenue")).as("nothing written").containsExactly(row("apple", "revenue", 100));
        }
    }

    /** Records the reconciler's reports. */
    static final class Drifts implements MaterializerListener {

        final List<VerifyReport> reports = new CopyOnWriteArrayList<>();

        final AtomicLong drift = new AtomicLong();

        /** What a test does when a pass starts. */
        volatile Runnable onPassStarted = () -> { };

        @Override
        public void onPassStarted(ViewKey view) {
            onPassStarted.run();
        }

        @Override
        public void onReconciled(ViewKey view, VerifyReport report, boolean drifted) {
            reports.add(report);
            if (drifted) {
                drift.incrementAndGet();
            }
        }
    }
}
