package dev.materializer.core;

import java.util.Objects;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * Where the rows of a status's generation are: the target collection and the partition the pass
 * that made it current wrote in. Stored in the status as {@code target: {collection, partition}} by
 * every flip and confirmation, so a generation is never taken for rows of a place it was not
 * written in — after the view document was given another target or moved to another partition, its
 * generation names nothing there until its first pass in the new place. A status written before the
 * field existed has no place: its generation is taken as written where the document points.
 *
 * <p>Immutable and thread-safe.
 *
 * @param collection the target collection
 * @param partition the partition
 */
public record GenerationPlace(String collection, String partition) {

    /** The field of the status that keeps the place of its generation. */
    public static final String FIELD = "target";

    /**
     * Checks the parts.
     * @param collection the target collection
     * @param partition the partition
     */
    public GenerationPlace {
        Objects.requireNonNull(collection, "collection");
        Objects.requireNonNull(partition, "partition");
    }

    /**
     * The place recorded in a stored status.
     * @param status the status field, or null
     * @return the place, or null when none is recorded (or it is malformed)
     */
    public static @Nullable GenerationPlace of(@Nullable BsonDocument status) {
        BsonValue place = status == null ? null : status.get(FIELD);
        if (place == null || !place.isDocument()) {
            return null;
        }
        BsonValue collection = place.asDocument().get("collection");
        BsonValue partition = place.asDocument().get("partition");
        return collection != null && collection.isString() && partition != null && partition.isString()
                ? new GenerationPlace(collection.asString().getValue(), partition.asString().getValue()) : null;
    }

    /**
     * The place recorded in a status read as a {@link Document}.
     * @param status the status field, or null
     * @return the place, or null when none is recorded (or it is malformed)
     */
    public static @Nullable GenerationPlace of(@Nullable Document status) {
        Object place = status == null ? null : status.get(FIELD);
        if (!(place instanceof Document document)) {
            return null;
        }
        if (document.get("collection") instanceof String collection
                && document.get("partition") instanceof String partition) {
            return new GenerationPlace(collection, partition);
        }
        return null;
    }

    /**
     * Whether a generation with this place (null: none recorded) is one of rows in the given place.
     * @param place the recorded place, or null
     * @param collection the target a document names
     * @param partition the partition it names
     * @return true when no place is recorded or it is that one
     */
    public static boolean fits(@Nullable GenerationPlace place, String collection, String partition) {
        return place == null || place.collection.equals(collection) && place.partition.equals(partition);
    }

    /** The place as stored in the status. */
    public BsonDocument toBson() {
        return new BsonDocument("collection", new BsonString(collection))
            .append("partition", new BsonString(partition));
    }
}
