package dev.materializer.core.server;

import ch.qos.logback.classic.Level;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Indexes;
import dev.materializer.core.CapturedLog;
import dev.materializer.core.server.SourceIndexes.Coverage;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether a source has an index leading with the partition field, as its indexes say, and the one
 * warning with the remedy when it has none.
 */
@MongoTest(MongoKind.IN_PROCESS)
class SourceIndexesInProcessTest {

    @Test
    void onlyAnIndexWhoseFirstKeyIsThePartitionFieldServesThePasses(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        assertThat(SourceIndexes.coverage(db, "orders", "_part")).as("no collection yet").isEqualTo(Coverage.UNKNOWN);

        db.getCollection("orders").insertOne(new Document("_id", 1).append("_part", "acme"));
        assertThat(SourceIndexes.coverage(db, "orders", "_part")).as("only _id").isEqualTo(Coverage.NOT_INDEXED);

        db.getCollection("orders").createIndex(Indexes.ascending("customer", "_part"));
        assertThat(SourceIndexes.coverage(db, "orders", "_part")).as("the field second").isEqualTo(Coverage.NOT_INDEXED);

        db.getCollection("orders").createIndex(Indexes.ascending("_part", "customer"));
        assertThat(SourceIndexes.coverage(db, "orders", "_part")).as("the field first").isEqualTo(Coverage.INDEXED);
    }

    @Test
    void aSourceWithoutSuchAnIndexIsNamedAtWarnWithTheIndexToCreate(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        db.getCollection("orders").insertOne(new Document("_id", 1).append("_part", "acme"));

        try (CapturedLog logged = CapturedLog.of(SourceIndexes.class)) {
            SourceIndexes.warnIfNotIndexed(db, "orders", "_part");
            db.getCollection("orders").createIndex(Indexes.ascending("_part"));
            SourceIndexes.warnIfNotIndexed(db, "orders", "_part");

            assertThat(logged.events()).singleElement().satisfies(event -> {
                assertThat(event.getLevel()).isEqualTo(Level.WARN);
                assertThat(event.getFormattedMessage()).contains("Source orders has no index that starts with the"
                        + " partition field '_part'").endsWith("db.orders.createIndex({_part: 1})");
            });
        }
    }
}
