package dev.materializer.core.write;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.mongodb.client.ClientSession;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Projections;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.view.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The stored ids and hashes of a view's rows in a generation, read in one scan of
 * {@code {partition, _viewGen}} (the index the runner makes): the result is compared against it
 * row by row without a query per group. It holds one key and one hash per row — of the same order
 * as the keys of the result a pass keeps anyway.
 *
 * <p>Not thread-safe: one pass uses it.
 */
final class StoredGeneration {

    private final RowHasher hasher;

    private final Map<String, Stored> rows = new HashMap<>();

    private StoredGeneration(RowHasher hasher) {
        this.hasher = hasher;
    }

    /**
     * Reads the ids and hashes of the rows a filter selects — in a transaction when a session is
     * given.
     */
    static StoredGeneration read(MongoCollection<BsonDocument> target, @Nullable ClientSession session,
            BsonDocument filter, RowHasher hasher) {
        StoredGeneration generation = new StoredGeneration(hasher);
        FindIterable<BsonDocument> found = session == null ? target.find(filter) : target.find(session, filter);
        for (BsonDocument row : found.projection(Projections.include("_id", ViewFilter.HASH_FIELD))) {
            BsonValue id = row.get("_id");
            BsonValue hash = row.get(ViewFilter.HASH_FIELD);
            generation.rows.put(hasher.idKey(id),
                    new Stored(id, hash != null && hash.isString() ? hash.asString().getValue() : null));
        }
        return generation;
    }

    /** The key of a stored id, as this generation knows its rows. */
    String keyOf(BsonValue storedId) {
        return hasher.idKey(storedId);
    }

    /** The stored hash of the row with that key; null when the generation lacks the row. */
    @Nullable
    String hashOf(String key) {
        Stored stored = rows.get(key);
        return stored == null ? null : stored.hash();
    }

    boolean contains(String key) {
        return rows.containsKey(key);
    }

    int size() {
        return rows.size();
    }

    /** The stored ids of the rows whose keys are not among these. */
    List<BsonValue> idsNotIn(Set<String> keys) {
        return rows.entrySet().stream().filter(entry -> !keys.contains(entry.getKey()))
            .map(entry -> entry.getValue().id())
            .toList();
    }

    private record Stored(BsonValue id, @Nullable String hash) {
    }
}
