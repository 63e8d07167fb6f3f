package dev.materializer.core.server;

import java.time.Duration;
import java.time.Instant;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import org.bson.BsonDocument;

/**
 * How far this host's clock runs ahead of the server's, measured halfway through a round trip that
 * stamps the server's time with {@code $currentDate} (a classic operator every deployment has).
 * Lag is judged against the server's clock: a host running ahead would otherwise read every event
 * as late.
 */
public final class ClockSkew {

    private ClockSkew() {
    }

    /**
     * Measures the skew.
     * @param database the engine's database
     * @param collection the engine's checkpoints collection, where the stamp is kept
     * @return host time minus server time; zero when the server does not answer with a date
     */
    public static Duration measure(MongoDatabase database, String collection) {
        // One document shared by every instance: one per instance id would pile up, one per process
        // start with the default ids.
        Instant before = Instant.now();
        BsonDocument stamped = database.getCollection(collection, BsonDocument.class)
            .findOneAndUpdate(Filters.eq("_id", "clock"), Updates.currentDate("now"),
                    new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER));
        Instant after = Instant.now();
        if (stamped == null || !stamped.isDateTime("now")) {
            return Duration.ZERO;
        }
        Instant server = Instant.ofEpochMilli(stamped.getDateTime("now").getValue());
        Instant middle = before.plus(Duration.between(before, after).dividedBy(2));
        return Duration.between(server, middle);
    }
}
