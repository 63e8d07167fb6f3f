package dev.materializer.core.write;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The places (a partition's rows in a target) that views left and whose rows are not removed yet,
 * kept in the engine's checkpoints collection:
 * {@code {_id: "left:<partition>\u001F<target>", kind: "left", partition, target, leftAt}}. Whichever
 * instance hears a view leave (its views stream, or a start that finds it from the view's status)
 * writes it; the owner of the partition removes the rows once {@code generationGrace} has passed
 * since {@code leftAt} and then the entry. Kept in MongoDB, not in memory, so neither a restart
 * within the grace nor a departure heard only by an instance that does not own the partition
 * forgets the rows.
 *
 * <p>{@code leftAt} is the engine host's time of the last departure noted ({@code $max}): a later
 * departure from the same place restarts the grace, never shortens it.
 *
 * <p>Immutable and thread-safe.
 */
public final class LeftPlaces {

    /** The {@code kind} of the entries in the checkpoints collection. */
    static final String KIND = "left";

    private static final char SEPARATOR = '\u001F';

    private final MongoCollection<BsonDocument> checkpoints;

    /**
     * Creates the record of left places in the engine's checkpoints collection.
     * @param database the engine's database
     * @param checkpointsCollection the engine's collection of checkpoints and heartbeats
     */
    public LeftPlaces(MongoDatabase database, String checkpointsCollection) {
        this.checkpoints = database.getCollection(checkpointsCollection, BsonDocument.class);
    }

    /**
     * A place a view left.
     * @param partition the partition whose rows are there
     * @param target the target collection
     * @param leftAt when the last departure from it was noted (host time)
     */
    public record Place(String partition, String target, Instant leftAt) {
    }

    /**
     * Notes that a view left a place.
     * @param at when (host time)
     * @throws com.mongodb.MongoException when the deployment fails
     */
    public void note(String partition, String target, Instant at) {
        checkpoints.updateOne(Filters.eq("_id", idOf(partition, target)),
                Updates.combine(Updates.set("kind", KIND), Updates.set("partition", partition), Updates.set("target", target),
                        Updates.max("leftAt", new java.util.Date(at.toEpochMilli()))),
                new UpdateOptions().upsert(true));
    }

    /**
     * Every place noted and not done yet.
     * @throws com.mongodb.MongoException when the deployment fails
     */
    public List<Place> all() {
        List<Place> places = new ArrayList<>();
        for (BsonDocument entry : checkpoints.find(Filters.eq("kind", KIND))) {
            BsonValue partition = entry.get("partition");
            BsonValue target = entry.get("target");
            BsonValue leftAt = entry.get("leftAt");
            if (partition != null && partition.isString() && target != null && target.isString() && leftAt != null
                    && leftAt.isDateTime()) {
                places.add(new Place(partition.asString().getValue(), target.asString().getValue(),
                        Instant.ofEpochMilli(leftAt.asDateTime().getValue())));
            }
        }
        return places;
    }

    /**
     * Removes the entry of a place whose rows are removed (or belong to a view there again), unless a
     * departure noted since restarted its grace.
     * @throws com.mongodb.MongoException when the deployment fails
     */
    public void done(Place place) {
        checkpoints.deleteOne(Filters.and(Filters.eq("_id", idOf(place.partition(), place.target())),
                Filters.lte("leftAt", new java.util.Date(place.leftAt().toEpochMilli()))));
    }

    private static String idOf(String partition, String target) {
        return KIND + ":" + partition + SEPARATOR + target;
    }
}
