package dev.materializer.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A delete whose event names no partition (the in-process server keeps no pre-images) over many
 * tenants sharing a per-document view: the engine finds the tenant holding the deleted row with one
 * query, and runs that tenant's view only. The listener hears such a delete as a broadcast of its
 * source.
 */
@MongoTest(MongoKind.IN_PROCESS)
class BroadcastDeleteInProcessTest {

    private static final int TENANTS = 100;

    private static final String ROWS = "{\"$project\": {\"product\": 1, \"quantity\": 1}}";

    @Test
    void aDeleteWithoutItsPartitionRunsOnlyTheTenantHoldingItsRowInAFewCommands(TestMongo mongo) {
        AtomicLong commands = new AtomicLong();
        CommandListener counting = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (!changeStream(event) && !isCheckpoint(event)) {
                    commands.incrementAndGet();
                }
            }
        };
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(mongo.connectionString()).addCommandListener(counting).build());
        try (client; EngineFixture f = new EngineFixture(mongo, client, new ManualClock(), builder -> builder)) {
            List<Document> orders = new ArrayList<>();
            for (int tenant = 0; tenant < TENANTS; tenant++) {
                orders.add(order("o-" + tenant, "t" + tenant, "apple", tenant, 1));
                f.defineView("rows-t" + tenant, "t" + tenant, List.of("orders"), "order_rows", ROWS);
            }
            f.collection("orders").insertMany(orders);
            f.start();
            assertThat(f.collection("order_rows").countDocuments(Filters.eq("_viewRow", "o-42"))).isEqualTo(1);
            f.events.clear();
            commands.set(0);

            f.collection("orders").deleteOne(Filters.eq("_id", "o-42"));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.events.passes).extracting(report -> report.view().partition()).containsExactly("t42");
            assertThat(f.rows("rows-t42", "order_rows")).isEmpty();
            assertThat(f.rows("rows-t41", "order_rows")).hasSize(1);
            assertThat(commands.get()).as("commands for the delete over %d tenants", TENANTS).isLessThanOrEqualTo(20);
        }
    }

    @Test
    void aDeleteWithoutAPreImageIsToldToTheListenerAsABroadcastOfItsSourceAndEventsNamingTheirPartitionAreNot(
            TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo)) {
            for (int tenant = 0; tenant < 3; tenant++) {
                f.defineView("rows-t" + tenant, "t" + tenant, List.of("orders"), "order_rows", ROWS);
            }
            f.collection("orders").insertOne(order("o-1", "t1", "apple", 1, 1));
            f.start();
            f.events.clear();

            f.collection("orders").insertOne(order("o-2", "t2", "pear", 2, 1));
            f.collection("orders").updateOne(Filters.eq("_id", "o-2"), Updates.set("quantity", 3));
            f.collection("orders").deleteOne(Filters.eq("_id", "o-1"));
            // One stream thread hands the events over in order: the delete's broadcast comes after the others
            await().atMost(RecordingListener.WAIT).until(() -> !f.events.broadcasts.isEmpty());
            f.settle();

            assertThat(f.events.changes).hasValue(3);
            assertThat(f.events.broadcasts).as("the delete only, once, by its source").containsExactly("orders");
            assertThat(f.rows("rows-t1", "order_rows")).isEmpty();
            assertThat(f.rows("rows-t2", "order_rows")).hasSize(1);
        }
    }

    private static boolean changeStream(CommandStartedEvent event) {
        BsonDocument command = event.getCommand();
        if (event.getCommandName().equals("getMore")) {
            return true; // the streams poll; a pass's getMores of a small result are none here
        }
        BsonValue pipeline = command.get("pipeline");
        return pipeline instanceof BsonArray stages && !stages.isEmpty() && stages.get(0).isDocument()
                && stages.get(0).asDocument().containsKey("$changeStream");
    }

    private static boolean isCheckpoint(CommandStartedEvent event) {
        BsonValue collection = event.getCommand().get(event.getCommandName());
        return collection != null && collection.isString()
                && collection.asString().getValue().equals(dev.materializer.core.MaterializerOptions.DEFAULT_CHECKPOINTS_COLLECTION);
    }
}
