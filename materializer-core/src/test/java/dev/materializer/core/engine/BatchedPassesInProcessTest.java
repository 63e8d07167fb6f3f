package dev.materializer.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassScope;
import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.REVENUE;
import static dev.materializer.core.engine.MaterializerContract.order;
import static dev.materializer.core.engine.MaterializerContract.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A burst of one insert in each of many tenants that share a definition: their passes run in
 * batches, so the burst costs a few commands per batch rather than about seven per tenant, and every
 * tenant's view ends right. The same burst with batching off is the figure it is measured against.
 */
@MongoTest(MongoKind.IN_PROCESS)
class BatchedPassesInProcessTest {

    private static final int TENANTS = 40;

    private static final String CHECKPOINTS = dev.materializer.core.MaterializerOptions.DEFAULT_CHECKPOINTS_COLLECTION;

    @Test
    void aBurstAcrossTenantsRunsInBatchesAndEveryViewEndsRight(TestMongo mongo) {
        long batched = burst(mongo, 50);
        long alone = burstAgain(mongo);

        assertThat(batched).as("commands of the burst's passes, batched (alone: %d)", alone).isLessThan(alone / 2);
    }

    @Test
    void aDeleteWithoutItsPartitionReachesEveryTenantOfAGroupByViewAndTheirWholePassesRunInBatches(TestMongo mongo) {
        AtomicLong commands = new AtomicLong();
        MongoClient client = countingClient(mongo, commands);
        try (client; EngineFixture f = new EngineFixture(mongo, client, new ManualClock(), builder -> builder)) {
            startTenants(f);
            commands.set(0);

            // No pre-image: the event names only the id, so every tenant's view runs, and runs whole
            f.collection("orders").deleteOne(Filters.eq("_id", "p-7"));
            awaitEveryTenantMarked(f, System.nanoTime());
            f.settle();

            assertThat(f.events.passes).hasSize(TENANTS);
            assertThat(f.events.passes).extracting(report -> report.scope()).containsOnly(PassScope.FULL);
            assertThat(f.events.passes).filteredOn(report -> report.scopeNote() != null
                    && report.scopeNote().contains("in a batch")).as("whole passes run in batches").isNotEmpty();
            assertThat(f.rows("revenue-t7", "revenue")).containsExactly(row("apple", "revenue", 2));
            assertThat(f.rows("revenue-t8", "revenue")).containsExactly(row("apple", "revenue", 2), row("pear", "revenue", 3));
            assertThat(commands.get()).as("commands of %d whole passes (alone: about 7 each)", TENANTS)
                .isLessThan(TENANTS * 7 / 2);
        }
    }

    /** The burst with batching off, in a fresh database of the same server: the figure before. */
    private static long burstAgain(TestMongo mongo) {
        TestMongo other = new TestMongo(mongo.kind(), mongo.connectionString(), mongo.client(),
                mongo.client().getDatabase(mongo.database().getName() + "_alone"), mongo.capabilities());
        try {
            return burst(other, 1);
        }
        finally {
            other.database().drop();
        }
    }

    /** Runs the burst with a batch size and returns the commands the passes sent. */
    private static long burst(TestMongo mongo, int batchSize) {
        AtomicLong commands = new AtomicLong();
        MongoClient client = countingClient(mongo, commands);
        try (client; EngineFixture f = new EngineFixture(mongo, client, new ManualClock(),
                builder -> builder.passBatchSize(batchSize))) {
            startTenants(f);
            commands.set(0);

            List<Document> burst = new ArrayList<>();
            for (int tenant = 0; tenant < TENANTS; tenant++) {
                burst.add(order("q-" + tenant, "t" + tenant, "apple", 1, 2));
            }
            f.collection("orders").insertMany(burst);
            awaitEveryTenantMarked(f, System.nanoTime());
            f.settle();

            assertThat(f.events.passes).hasSize(TENANTS);
            assertThat(f.events.passes).extracting(report -> report.outcome()).containsOnly(PassOutcome.CHANGED);
            assertThat(f.events.passes).extracting(report -> report.scope()).containsOnly(PassScope.KEYS);
            for (int tenant = 0; tenant < TENANTS; tenant++) {
                assertThat(f.rows("revenue-t" + tenant, "revenue")).as("tenant %d", tenant)
                    .containsExactly(row("apple", "revenue", 4), row("pear", "revenue", 3));
                assertThat(f.status("revenue-t" + tenant).getString("state")).isEqualTo("ok");
            }
            long burstCommands = commands.get();

            // The sweeps after the flips' grace come due together: one status read and one delete, not two per view
            commands.set(0);
            f.clock.advance(f.options.generationGrace());
            f.settle();
            assertThat(commands.get()).as("commands of the sweeps after the grace of %d flips", TENANTS)
                .isLessThanOrEqualTo(4);
            // (What they remove is judged by the server's clock, which this test does not move: the grace
            // sweep's removals are asserted where the server's time passes the grace.)
            return burstCommands;
        }
    }

    /** A client whose commands on the pass threads are counted (the checkpoints' reads that run there are not a pass's). */
    private static MongoClient countingClient(TestMongo mongo, AtomicLong commands) {
        CommandListener counting = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                BsonValue collection = event.getCommand().get(event.getCommandName());
                if (Thread.currentThread().getName().startsWith("materializer-pass") && !(collection != null
                        && collection.isString() && collection.asString().getValue().equals(CHECKPOINTS))) {
                    commands.incrementAndGet();
                }
            }
        };
        return MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(mongo.connectionString()).addCommandListener(counting).build());
    }

    /** Every tenant with an apple and a pear order and its revenue view, run once; the engine idle. */
    private static void startTenants(EngineFixture f) {
        List<Document> orders = new ArrayList<>();
        for (int tenant = 0; tenant < TENANTS; tenant++) {
            orders.add(order("o-" + tenant, "t" + tenant, "apple", 1, 2));
            orders.add(order("p-" + tenant, "t" + tenant, "pear", 1, 3));
            f.defineView("revenue-t" + tenant, "t" + tenant, List.of("orders"), "revenue", REVENUE);
        }
        f.collection("orders").insertMany(orders);
        f.start();
        f.events.clear();
    }

    /** Waits until the streams heard what was written before {@code since} and every tenant is marked, as in a burst. */
    private static void awaitEveryTenantMarked(EngineFixture f, long since) {
        await().atMost(RecordingListener.WAIT).until(() -> EngineProbe.quiescence(f.engine, since).streamsBehind().isEmpty()
                && EngineProbe.quiescence(f.engine, since).backlog().dirty().size() == TENANTS);
    }
}
