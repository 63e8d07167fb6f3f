package dev.materializer.core.subscribe;

import dev.materializer.core.ViewRow;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Turns a stored version into the row subscribers see: its own id is {@code _viewRow} (a row of the
 * format before versions has none: its {@code _id}), keyed by the engine's exact id text, so rows
 * whose ids MongoDB compares equal ({@code 1} and {@code 1.0}) stay apart, as the writer keeps them.
 *
 * <p>Immutable and thread-safe.
 */
final class RowKeys {

    private final RowHasher hasher = new RowHasher();

    ViewRow row(BsonDocument version) {
        BsonValue id = idOf(version);
        return new ViewRow(id, hasher.idKey(id), version);
    }

    String keyOf(BsonDocument version) {
        return hasher.idKey(idOf(version));
    }

    private static BsonValue idOf(BsonDocument version) {
        BsonValue row = version.get(ViewFilter.ROW_FIELD);
        if (row != null) {
            return row;
        }
        BsonValue id = version.get("_id");
        if (id == null) {
            throw new IllegalArgumentException("a stored row without _id or " + ViewFilter.ROW_FIELD);
        }
        return id;
    }
}
