package dev.materializer.benchmarks.scale;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import org.bson.BsonDocument;

/** Lays out a measurement's database on a fresh server: the view documents, then the oplog, then a checkpoint. */
final class Setup {

    private Setup() {
    }

    /**
     * Writes the fleet's view documents (oplog off), turns the oplog on, and — when asked — writes
     * the instance's checkpoint of the orders stream with a real resume token. Without the
     * checkpoint, one order is still inserted, so the source exists with a row to read.
     */
    static void prepare(InProcessMongo mongo, Fleet fleet, boolean checkpoint) {
        try (MongoClient client = mongo.client()) {
            MongoDatabase database = client.getDatabase(Fleet.DATABASE);
            fleet.writeViews(database);
            mongo.enableOplog();
            BsonDocument token = Fleet.resumeToken(database, fleet.options.partitionField());
            if (checkpoint) {
                fleet.writeCheckpoint(database, token);
            }
        }
    }
}
