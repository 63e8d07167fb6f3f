package dev.materializer.core.engine;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.mongodb.MongoClientSettings;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.core.server.EngineConcerns;
import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.Capability;
import dev.materializer.testing.RequiresCapability;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.engine.MaterializerContract.REVENUE;
import static dev.materializer.core.engine.MaterializerContract.order;
import static dev.materializer.core.engine.MaterializerContract.row;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine reads the primary with majority concerns whatever the application client's defaults:
 * here a client that prefers secondaries and acknowledges writes on one member. Written once, run
 * against each kind of server.
 */
abstract class ClientDefaultsContract {

    /** The commands the engine's client sent, as the driver sent them. */
    private final List<Sent> sent = new CopyOnWriteArrayList<>();

    private MongoClient lenient;

    private MongoClient lenientClient(TestMongo mongo) {
        CommandListener recorder = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                // The driver's command is read from its buffer, valid only during the call: copy it.
                sent.add(new Sent(event.getDatabaseName(), event.getCommandName(), event.getCommand().clone()));
            }
        };
        lenient = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(mongo.connectionString())
            .readPreference(ReadPreference.secondaryPreferred())
            .writeConcern(WriteConcern.W1)
            .readConcern(ReadConcern.LOCAL)
            .addCommandListener(recorder)
            .build());
        return lenient;
    }

    @AfterEach
    void closeTheClient() {
        if (lenient != null) {
            lenient.close();
        }
    }

    @Test
    void theEngineHandleReadsThePrimaryWithMajorityConcernsWhateverTheClient(TestMongo mongo) {
        var database = EngineConcerns.database(lenientClient(mongo), mongo.database().getName());

        assertThat(database.getReadPreference()).isEqualTo(ReadPreference.primary());
        assertThat(database.getReadConcern()).isEqualTo(ReadConcern.MAJORITY);
        assertThat(database.getWriteConcern()).isEqualTo(WriteConcern.MAJORITY);
    }

    @Test
    void transactionsAreDetectedAsWithAClientOfThePrimary(TestMongo mongo) {
        MongoClient client = lenientClient(mongo);
        boolean withPrimary = CapabilityDetector.detect(mongo.client(), mongo.database(), "_probe").transactions();

        boolean withLenient = CapabilityDetector.detect(client, client.getDatabase(mongo.database().getName()), "_probe")
            .transactions();

        assertThat(withLenient).as("a secondaryPreferred client detects what a primary client does")
            .isEqualTo(withPrimary)
            .isEqualTo(mongo.has(Capability.TRANSACTIONS));
        try (EngineFixture f = new EngineFixture(mongo, client, new ManualClock(), builder -> builder)) {
            f.start();
            assertThat(f.engine.snapshot().transactions()).isEqualTo(withPrimary);
        }
    }

    @Test
    void everyReadAndWriteOfTheEngineOutsideTransactionsCarriesMajority(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo, lenientClient(mongo), new ManualClock(), builder -> builder)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 2, 3));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.events.awaitChanges(1);
            f.settle();
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 6), row("pear", "revenue", 5));
        }

        List<BsonDocument> writes = commands(mongo, "insert", "update", "delete", "findAndModify");
        List<BsonDocument> reads = commands(mongo, "find", "aggregate");
        assertThat(writes).as("the engine wrote").isNotEmpty();
        assertThat(reads).as("the engine read").isNotEmpty();
        assertThat(writes).allSatisfy(command -> assertThat(command.getDocument("writeConcern", new BsonDocument()))
            .as("write concern of %s", command.getFirstKey())
            .isEqualTo(BsonDocument.parse("{w: 'majority'}")));
        assertThat(reads).allSatisfy(command -> assertThat(command.getDocument("readConcern", new BsonDocument()))
            .as("read concern of %s", command.getFirstKey())
            .isEqualTo(BsonDocument.parse("{level: 'majority'}")));
        assertThat(sent).noneSatisfy(each -> assertThat(each.command().toJson()).contains("secondaryPreferred"));
    }

    @Test
    @RequiresCapability(Capability.TRANSACTIONS)
    void withASecondaryPreferredClientASmallViewIsStillWrittenInOneTransaction(TestMongo mongo) {
        try (EngineFixture f = new EngineFixture(mongo, lenientClient(mongo), new ManualClock(), builder -> builder)) {
            f.collection("orders").insertOne(order("o1", "acme", "apple", 1, 1));
            f.defineView("revenue", "acme", List.of("orders"), "revenue", REVENUE);
            f.start();
            assertThat(f.engine.snapshot().transactions()).as("transactions detected").isTrue();

            f.events.clear();
            f.collection("orders").insertOne(order("o2", "acme", "pear", 1, 5));
            f.events.awaitChanges(1);
            f.settle();

            assertThat(f.events.passesOf("acme", "revenue")).anySatisfy(report -> {
                assertThat(report.mode().name()).isEqualTo("TRANSACTION");
                assertThat(report.rowsWritten()).isEqualTo(1);
            });
            assertThat(f.rows("revenue", "revenue")).containsExactly(row("apple", "revenue", 1), row("pear", "revenue", 5));
        }
    }

    /** The engine's commands of those names on the test's database, outside transactions. */
    private List<BsonDocument> commands(TestMongo mongo, String... names) {
        return sent.stream()
            .filter(each -> each.database().equals(mongo.database().getName()))
            .filter(each -> List.of(names).contains(each.name()))
            .map(Sent::command)
            .filter(command -> !command.containsKey("txnNumber") || !command.containsKey("autocommit"))
            .toList();
    }

    private record Sent(String database, String name, BsonDocument command) {
    }
}
