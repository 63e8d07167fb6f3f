package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import com.mongodb.MongoException;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewFilter;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The stored rows of a view in one generation, read once per pass in {@code _viewRow} order (the
 * index {@code {partition, _viewRow}} serves it) so that they merge with the result sorted the same
 * way; the driver fetches {@value TargetRows#GROUP_SIZE} at a time. A whole pass reads ids and hashes
 * only; a verification reads whole rows to hash their content again, and a key-scoped pass reads its
 * keys' whole versions (few), so that it can close them with a replacement sent in the same command
 * as its new versions ({@link TargetRows#addWrites}).
 *
 * <p>The rows of one generation never change while it is current or within its grace: a pass
 * writing the next one only adds versions above it and closes versions at the next number. So the
 * scan sees one state, though the pass writes to the same collection as it reads.
 *
 * <p>Not thread-safe: one pass reads it.
 */
final class StoredRows implements AutoCloseable, RowMerge.StoredSide {

    private final @Nullable Iterator<BsonDocument> cursor;

    /** Whether the documents are whole versions, not only the projected fields. */
    private final boolean whole;

    private long read;

    private StoredRows(@Nullable Iterator<BsonDocument> cursor, boolean whole) {
        this.cursor = cursor;
        this.whole = whole;
    }

    /**
     * Stored versions read already, in {@code _viewRow} order: a batched pass reads those of many
     * views in one query and hands each view its own.
     * @param whole whether they are whole versions; else only {@code _id}, {@code _viewRow} and the hash
     */
    static StoredRows of(List<BsonDocument> versions, boolean whole) {
        return new StoredRows(versions.iterator(), whole);
    }

    /**
     * The whole versions of a generation among versions of any generation read already, in
     * {@code _viewRow} order: those a key-scoped pass's status read brought of its keys.
     */
    static StoredRows ofGeneration(List<BsonDocument> versions, Generation generation) {
        List<BsonDocument> current = new ArrayList<>();
        if (!generation.isLegacy()) {
            for (BsonDocument version : versions) {
                if (sees(version, generation.number())) {
                    current.add(version);
                }
            }
        }
        return new StoredRows(current.iterator(), true);
    }

    /** Whether a reader of generation {@code number} sees the version: {@code _viewFrom <= number < _viewTo}. */
    private static boolean sees(BsonDocument version, long number) {
        BsonValue from = version.get(ViewFilter.FROM_FIELD);
        BsonValue to = version.get(ViewFilter.TO_FIELD);
        return from != null && from.isNumber() && to != null && to.isNumber()
                && from.asNumber().longValue() <= number && to.asNumber().longValue() > number;
    }

    /**
     * Opens the rows of a generation; none before the first, and none of a legacy generation, which
     * the pass rebuilds in versions.
     * @param whole whether to read whole rows; else only {@code _id}, {@code _viewRow} and the hash
     */
    static StoredRows open(MongoCollection<BsonDocument> target, TargetRows rows, String partition,
            @Nullable Generation generation, boolean whole) {
        return open(target, rows, partition, generation, whole, null);
    }

    /**
     * Opens the rows of a generation with some row ids only, as a key-scoped pass reads them.
     * @param rowIds the row ids, or null for every row
     */
    static StoredRows open(MongoCollection<BsonDocument> target, TargetRows rows, String partition,
            @Nullable Generation generation, boolean whole, @Nullable List<BsonValue> rowIds) {
        if (generation == null || generation.isLegacy()) {
            return new StoredRows(null, whole);
        }
        BsonDocument filter = rows.inGeneration(partition, generation);
        if (rowIds != null) {
            filter.append(ViewFilter.ROW_FIELD, new BsonDocument("$in", new BsonArray(rowIds)));
        }
        FindIterable<BsonDocument> found = target.find(filter)
            .sort(Sorts.ascending(ViewFilter.ROW_FIELD))
            .batchSize(TargetRows.GROUP_SIZE);
        if (!whole) {
            found = found.projection(Projections.include("_id", ViewFilter.ROW_FIELD, ViewFilter.HASH_FIELD));
        }
        return new StoredRows(found.cursor(), whole);
    }

    /** The next stored row, or null after the last. */
    @Override
    @Nullable
    public Stored next() {
        if (cursor == null || !cursor.hasNext()) {
            return null;
        }
        BsonDocument row = cursor.next();
        read++;
        BsonValue rowId = row.get(ViewFilter.ROW_FIELD);
        BsonValue hash = row.get(ViewFilter.HASH_FIELD);
        // A version without its row id (edited by hand) matches no result row: it is closed and rewritten.
        return new Stored(row.get("_id"), rowId, hash != null && hash.isString() ? hash.asString().getValue() : null,
                row, whole);
    }

    /** How many stored rows were read so far. */
    long read() {
        return read;
    }

    @Override
    public void close() {
        if (cursor instanceof MongoCursor<BsonDocument> open) {
            try {
                open.close();
            }
            catch (MongoException ex) {
                // The server ends an abandoned cursor on its own.
            }
        }
    }

    /**
     * One stored version.
     * @param storedId its {@code _id}
     * @param rowId the row's own id, null when the version lacks it
     * @param hash its stored hash, null when it lacks one
     * @param document the document as read (only the projected fields for a whole pass)
     * @param whole whether the document is the whole version
     */
    record Stored(BsonValue storedId, @Nullable BsonValue rowId, @Nullable String hash, BsonDocument document,
            boolean whole) {
    }
}
