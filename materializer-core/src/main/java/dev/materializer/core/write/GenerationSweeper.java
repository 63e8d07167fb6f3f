package dev.materializer.core.write;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the rows of generations a view no longer needs. It keeps the current generation, the
 * previous one while within {@code generationGrace} of its flip, and the generation of a live lease
 * (a pass in groups writes it) — all in server time.
 *
 * <p>Of the other generations it removes the ones it knows are done (the previous one after its
 * grace, the one of an ended lease), and any other only when its id is older than
 * {@code passLease}: the status it decides on may be stale, and a generation made after that read
 * — by a pass that took its lease since — must survive. A pass makes its generation just before it
 * takes its lease, and a lease that ended was taken at least {@code passLease} ago, so the orphans
 * of dead passes still go.
 *
 * <p>Immutable and thread-safe.
 */
final class GenerationSweeper {

    private static final Logger log = LoggerFactory.getLogger(GenerationSweeper.class);

    private final MongoDatabase database;

    private final String partitionField;

    private final Duration generationGrace;

    private final Duration passLease;

    GenerationSweeper(MongoDatabase database, MaterializerOptions options) {
        this.database = database;
        this.partitionField = options.partitionField();
        this.generationGrace = options.generationGrace();
        this.passLease = options.passLease();
    }

    /**
     * Removes the rows of the view's partition whose generation is no longer needed.
     * @param status the view's status, as read at {@code serverNow}
     * @param serverNow the server's time of that read
     * @return how many rows it removed
     */
    long sweep(ViewDefinition view, ViewStatus status, Instant serverNow) {
        ObjectId current = status.generation();
        if (current == null) {
            // Before the first generation a transaction may be naming one: nothing is surely old
            return 0;
        }
        List<BsonValue> keep = new ArrayList<>(List.of(new BsonObjectId(current)));
        List<BsonValue> done = new ArrayList<>();
        ViewStatus.Previous previous = status.previous();
        if (previous != null && previous.generation() != null) {
            boolean inGrace = previous.flippedAt() != null
                    && serverNow.isBefore(previous.flippedAt().plus(generationGrace));
            (inGrace ? keep : done).add(new BsonObjectId(previous.generation()));
        }
        ViewStatus.Lease lease = status.lease();
        if (lease != null) {
            (lease.until().isAfter(serverNow) ? keep : done).add(new BsonObjectId(lease.generation()));
        }
        done.removeAll(keep);
        BsonDocument filter = filter(view.partition(), keep, done, serverNow);
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        long removed = target.deleteMany(filter).getDeletedCount();
        if (removed > 0) {
            log.debug("View {}: removed {} row(s) of old generations", view.key(), removed);
        }
        return removed;
    }

    /**
     * The rows of the partition (named first: on a target sharded by the partition field the delete
     * goes to one shard) in a generation not kept, and either known done or older than
     * {@code passLease}.
     */
    BsonDocument filter(String partition, List<BsonValue> keep, List<BsonValue> done, Instant serverNow) {
        return new BsonDocument(partitionField, new BsonString(partition))
            .append("$and", new BsonArray(List.of(
                    new BsonDocument(ViewFilter.GENERATION_FIELD, new BsonDocument("$exists", BsonBoolean.TRUE)
                        .append("$nin", new BsonArray(keep))),
                    new BsonDocument("$or", new BsonArray(List.of(
                            new BsonDocument(ViewFilter.GENERATION_FIELD, new BsonDocument("$in", new BsonArray(done))),
                            new BsonDocument(ViewFilter.GENERATION_FIELD,
                                    new BsonDocument("$lt", new BsonObjectId(madeBefore(serverNow.minus(passLease)))))))))));
    }

    /** The smallest ObjectId made at that second: every id made earlier is less. */
    static ObjectId madeBefore(Instant time) {
        ByteBuffer bytes = ByteBuffer.allocate(12);
        bytes.putInt((int) Math.max(0, time.getEpochSecond()));
        return new ObjectId(bytes.array());
    }
}
