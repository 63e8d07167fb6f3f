package dev.materializer.core;

import java.util.Objects;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * One row of a view as a reader of its target reads it through
 * {@link dev.materializer.core.ViewFilter}: the stored version, with the row's own id.
 *
 * <p>Immutable and thread-safe as long as nobody changes the document (it is the engine's copy).
 *
 * @param id the row's own {@code _id}, as the pipeline gave it (the version's {@code _viewRow})
 * @param key the exact text of that id (type- and field-order-aware: {@code 1}, {@code 1L} and
 *     {@code 1.0} differ): what deltas pair rows by, and what a subscriber keys its rows by
 * @param document the stored version as a reader reads it, engine fields included
 */
public record ViewRow(BsonValue id, String key, BsonDocument document) {

    /** Checks the parts. */
    public ViewRow {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(document, "document");
    }
}
