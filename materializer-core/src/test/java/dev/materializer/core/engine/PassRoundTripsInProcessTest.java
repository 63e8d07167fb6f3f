package dev.materializer.core.engine;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.materializer.core.PassOutcome;
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

/**
 * The round trips of a steady-state pass of a 1-row change, by collection, on the in-process
 * server (no transactions: the pass writes in groups under a lease). Five in all: on the views
 * collection the status read with the server's time (which also brings the stored versions of the
 * pass's keys), the lease's take and the flip that also says the view is ok; the pipeline on the
 * source; one write of the close and the new version on the target. No status write of its own, no
 * read of the server's time for the lease, no read back of the generation, no read of the other
 * views' generations for a view that reads none of their targets, and no read of the target of its own.
 */
@MongoTest(MongoKind.IN_PROCESS)
class PassRoundTripsInProcessTest {

    @Test
    void aOneRowChangeCostsFiveCommandsAndTheStateLandsWithTheFlip(TestMongo mongo) {
        Map<String, AtomicLong> byCollection = new ConcurrentHashMap<>();
        CommandListener counting = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                // The pass's own commands: the streams and the timers run on other threads
                if (!Thread.currentThread().getName().startsWith("materializer-pass")) {
                    return;
                }
                BsonValue collection = event.getCommand().get(event.getCommandName());
                String name = collection != null && collection.isString() ? collection.asString().getValue() : "?";
                byCollection.computeIfAbsent(name, key -> new AtomicLong()).incrementAndGet();
            }
        };
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(mongo.connectionString()).addCommandListener(counting).build());
        try (client; EngineFixture f = new EngineFixture(mongo, client, new ManualClock(), builder -> builder)) {
            f.collection("orders").insertMany(List.of(order("o1", "acme", "apple", 1, 1), order("o2", "acme", "pear", 1, 4)));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            // Two changes first, so the sweep before a pass has run at the oldest generation readers may hold
            for (int change = 1; change <= 2; change++) {
                f.collection("orders").updateOne(Filters.eq("_id", "o1"), Updates.inc("quantity", 1));
                f.events.awaitChanges(change);
                f.settle();
            }
            byCollection.clear();
            f.events.clear();

            f.collection("orders").updateOne(Filters.eq("_id", "o2"), Updates.inc("quantity", 1));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.events.passes).extracting(report -> report.outcome()).containsExactly(PassOutcome.CHANGED);
            Map<String, Long> sent = new TreeMap<>();
            byCollection.forEach((name, count) -> sent.put(name, count.get()));
            assertThat(sent).as("commands of the pass by collection").containsEntry(f.options.viewsCollection(), 3L)
                .containsEntry("orders", 1L);
            assertThat(sent).as("the close and the new version in one write; the stored versions came with the status")
                .containsEntry("revenue", 1L);
            assertThat(sent.values().stream().mapToLong(Long::longValue).sum()).as("commands of the pass").isEqualTo(5L);
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 3), row("pear", "revenue", 8));
            Document status = f.viewDocument("revenue").get(f.options.statusField(), Document.class);
            assertThat(status.getString("state")).isEqualTo("ok");
            assertThat(status.get("covered", Document.class)).as("the cluster time the pass applied").isNotNull();
            assertThat(status.getString("fingerprint")).isNotBlank();
        }
    }
}
