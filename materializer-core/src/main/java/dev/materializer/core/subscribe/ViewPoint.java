package dev.materializer.core.subscribe;

import dev.materializer.core.Generation;
import dev.materializer.core.GenerationPlace;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * What a view document says readers of one partition read, as {@link ViewFilter} decides it: a
 * generation and the place its rows are in, or nothing (never run, deleted, moved to another
 * partition, written in another place than the document names).
 *
 * <p>Immutable and thread-safe.
 *
 * @param generation the generation readers read, or null when they read nothing
 * @param target the target collection of the rows, or null when they read nothing
 * @param status the status the document holds ({@link ViewStatus#NONE} when none)
 */
record ViewPoint(@Nullable Generation generation, @Nullable String target, ViewStatus status) {

    static final ViewPoint NOTHING = new ViewPoint(null, null, ViewStatus.NONE);

    /**
     * What a view document, or its absence, says.
     * @param document the view document as stored; null when deleted or not found
     * @param partition the partition subscribed to
     */
    static ViewPoint of(@Nullable BsonDocument document, String partition, String partitionField, String statusField) {
        if (document == null || !new BsonString(partition).equals(document.get(partitionField))) {
            return NOTHING;
        }
        BsonValue stored = document.get(statusField);
        BsonDocument statusDocument = stored != null && stored.isDocument() ? stored.asDocument() : null;
        ViewStatus status = ViewStatus.fromBson(statusDocument);
        Generation generation = status.generation();
        GenerationPlace place = GenerationPlace.of(statusDocument);
        BsonValue named = document.get("targetCollection");
        String target = named != null && named.isString() ? named.asString().getValue()
                : place == null ? null : place.collection();
        if (generation == null || target == null || !GenerationPlace.fits(place, target, partition)) {
            return new ViewPoint(null, null, status);
        }
        return new ViewPoint(generation, target, status);
    }

    /** The generation's number; 0 when readers read nothing or it is of the format before versions. */
    long number() {
        return generation == null ? 0 : generation.number();
    }

    boolean legacy() {
        return generation != null && generation.isLegacy();
    }
}
