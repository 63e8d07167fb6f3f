package dev.materializer.core.hash;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A canonical hash of a row's content: insensitive to the order of keys in documents (at every
 * depth), sensitive to types (an int 1, a long 1 and a double 1.0 differ; an ObjectId and its hex
 * string differ) and to the order of arrays; the same on every JVM and run.
 *
 * <p>Thread-safe.
 */
public final class RowHasher {

    /**
     * The hash of a row's content. The caller leaves out {@code _id} and the engine's own fields.
     * @param content the content of the row
     * @return the hash, as text
     */
    public String hash(BsonDocument content) {
        throw new UnsupportedOperationException("RowHasher.hash: not implemented yet");
    }

    /**
     * A type-aware key of an id, for sets of ids in memory: equal for equal values of the same type,
     * different for an ObjectId and its hex, or an int 1 and a long 1; documents compare with their
     * keys in order, as MongoDB compares {@code _id}s.
     * @param id a value of {@code _id}
     * @return the key
     */
    public String idKey(BsonValue id) {
        throw new UnsupportedOperationException("RowHasher.idKey: not implemented yet");
    }
}
