package dev.materializer.core.stream;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the resume token of each source's stream in the engine's checkpoints collection, one
 * document per collection ({@code _id: "stream:<collection>"}), so a restart resumes instead of
 * recomputing.
 *
 * <p>Thread-safe: each stream thread saves only its own collection's document.
 */
public final class CheckpointStore {

    private static final Logger log = LoggerFactory.getLogger(CheckpointStore.class);

    private final MongoCollection<BsonDocument> checkpoints;

    /**
     * Creates the store.
     * @param database the engine's database
     * @param collection the checkpoints collection
     */
    public CheckpointStore(MongoDatabase database, String collection) {
        this.checkpoints = database.getCollection(collection, BsonDocument.class);
    }

    /**
     * The saved checkpoint of a collection's stream.
     * @param collection the watched collection
     * @return the checkpoint, or {@link Checkpoint#NONE}
     */
    public Checkpoint load(String collection) {
        BsonDocument saved = checkpoints.find(Filters.eq("_id", idOf(collection))).first();
        if (saved == null || !saved.isDocument("token")) {
            return Checkpoint.NONE;
        }
        Set<String> pending = new LinkedHashSet<>();
        if (saved.get("pending") instanceof BsonArray array) {
            for (BsonValue value : array) {
                if (value.isString()) {
                    pending.add(value.asString().getValue());
                }
            }
        }
        return new Checkpoint(saved.getDocument("token"), pending);
    }

    /**
     * Saves where a stream stands. A failure is logged, not thrown: the next save tries again, and
     * an old token only replays events.
     * @param collection the watched collection
     * @param checkpoint the token and the pending partitions
     * @param savedAtMillis when, on the host's clock, for operators reading the collection
     */
    public void save(String collection, Checkpoint checkpoint, long savedAtMillis) {
        BsonDocument document = new BsonDocument("_id", new BsonString(idOf(collection)))
            .append("kind", new BsonString("stream"))
            .append("collection", new BsonString(collection))
            .append("at", new BsonDateTime(savedAtMillis));
        if (checkpoint.token() != null) {
            document.append("token", checkpoint.token());
        }
        List<BsonValue> pending = new ArrayList<>();
        checkpoint.pending().stream().sorted().forEach(partition -> pending.add(new BsonString(partition)));
        document.append("pending", new BsonArray(pending));
        try {
            checkpoints.replaceOne(Filters.eq("_id", idOf(collection)), document, new ReplaceOptions().upsert(true));
        }
        catch (MongoException ex) {
            log.warn("The checkpoint of the stream of {} was not saved: {}", collection, ex.getMessage());
        }
    }

    /**
     * Forgets a collection's token: its stream starts from now next time.
     * @param collection the watched collection
     */
    public void clear(String collection) {
        try {
            checkpoints.deleteOne(Filters.eq("_id", idOf(collection)));
        }
        catch (MongoException ex) {
            log.warn("The checkpoint of the stream of {} was not cleared: {}", collection, ex.getMessage());
        }
    }

    private static String idOf(String collection) {
        return "stream:" + collection;
    }
}
