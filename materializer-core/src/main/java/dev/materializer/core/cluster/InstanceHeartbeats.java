package dev.materializer.core.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;

/**
 * Heartbeats in the engine's checkpoints collection, one document per instance:
 * {@code {_id: "instance:<id>", kind: "instance", instance: <id>, ready: <bool>, beatAt: <server time>}}.
 * An instance is live while its {@code beatAt} plus {@code partitionLease} is after the server's now,
 * judged with the server's time only, so host clocks do not matter. An instance still starting
 * ({@code ready: false}) takes no partition from the others yet: its streams are not open, and a
 * change between the others letting go and its streams opening would be heard by no one.
 *
 * <p>Not thread-safe by itself: {@link PartitionOwnership} calls it from one thread at a time.
 */
public final class InstanceHeartbeats implements Heartbeats {

    static final String KIND = "instance";

    private final MongoCollection<BsonDocument> checkpoints;

    private final String instanceId;

    private final Duration partitionLease;

    /**
     * Creates the heartbeats of one instance.
     * @param database the engine's database
     * @param collection the engine's checkpoints collection
     * @param instanceId this instance
     * @param partitionLease how long an instance counts as live without a heartbeat
     */
    public InstanceHeartbeats(MongoDatabase database, String collection, String instanceId, Duration partitionLease) {
        this.checkpoints = database.getCollection(collection, BsonDocument.class);
        this.instanceId = instanceId;
        this.partitionLease = partitionLease;
    }

    @Override
    public Set<String> beat(boolean ready) {
        // $currentDate is a classic operator: every deployment has it, and it gives the server's now.
        BsonDocument mine = checkpoints.findOneAndUpdate(Filters.eq("_id", idOf(instanceId)),
                Updates.combine(Updates.set("kind", KIND), Updates.set("instance", instanceId),
                        Updates.set("ready", ready),
                        Updates.currentDate("beatAt")),
                new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER));
        Set<String> live = new TreeSet<>();
        live.add(instanceId);
        if (mine == null || !mine.isDateTime("beatAt")) {
            return live;
        }
        Instant serverNow = Instant.ofEpochMilli(mine.getDateTime("beatAt").getValue());
        for (BsonDocument other : checkpoints.find(Filters.eq("kind", KIND))) {
            if (isLiveAndReady(other, serverNow)) {
                live.add(other.getString("instance").getValue());
            }
        }
        return live;
    }

    private boolean isLiveAndReady(BsonDocument beat, Instant serverNow) {
        return beat.isString("instance") && beat.isDateTime("beatAt")
                && beat.getBoolean("ready", BsonBoolean.FALSE).getValue()
                && Instant.ofEpochMilli(beat.getDateTime("beatAt").getValue()).plus(partitionLease).isAfter(serverNow);
    }

    @Override
    public void leave() {
        checkpoints.deleteOne(Filters.eq("_id", idOf(instanceId)));
    }

    private static String idOf(String instanceId) {
        return "instance:" + instanceId;
    }
}
