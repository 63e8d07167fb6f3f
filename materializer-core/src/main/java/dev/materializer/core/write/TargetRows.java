package dev.materializer.core.write;

import java.util.List;
import java.util.Set;

import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.WriteModel;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.hash.TargetIdCheck;
import dev.materializer.core.TargetIdStrategy;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewFilter;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * The shape of the row versions in a target, and the filters that select them. A version is the
 * stored {@code _id} (from the {@link TargetIdStrategy}, given the id of the attempt that wrote it, so
 * versions of one row never share an id), the content, the partition field, {@code _viewRow} (the
 * row's own {@code _id}), {@code _viewFrom} and {@code _viewTo} (the generations it appeared and was
 * superseded in) and {@code _viewHash}. Every filter names the partition, so writes to a target
 * sharded by the partition field go to one shard.
 *
 * <p>Immutable and thread-safe.
 */
final class TargetRows {

    /** The writes and reads of a pass go to the server in groups of this size. */
    static final int GROUP_SIZE = 1000;

    private static final BsonInt64 OPEN = new BsonInt64(ViewFilter.OPEN);

    private final String partitionField;

    private final TargetIdStrategy targetId;

    private final RowHasher hasher;

    private final Set<String> engineFields;

    TargetRows(String partitionField, TargetIdStrategy targetId, RowHasher hasher) {
        this.partitionField = partitionField;
        this.targetId = targetId;
        this.hasher = hasher;
        this.engineFields = Set.of("_id", partitionField, ViewFilter.FROM_FIELD, ViewFilter.TO_FIELD,
                ViewFilter.ROW_FIELD, ViewFilter.HASH_FIELD, ViewFilter.GENERATION_FIELD);
    }

    String partitionField() {
        return partitionField;
    }

    /** The content of a row: everything but {@code _id} and the fields the engine adds. */
    BsonDocument contentOf(BsonDocument row) {
        BsonDocument content = new BsonDocument();
        row.forEach((name, value) -> {
            if (!engineFields.contains(name)) {
                content.append(name, value);
            }
        });
        return content;
    }

    /** A new current version of a row, appearing in generation {@code from}. */
    BsonDocument version(ResultRow row, String partition, ObjectId attempt, long from) {
        BsonDocument stored = new BsonDocument("_id", targetId.targetId(row.id(), partition, attempt));
        stored.putAll(row.content());
        return stored.append(partitionField, new BsonString(partition))
            .append(ViewFilter.ROW_FIELD, row.id())
            .append(ViewFilter.FROM_FIELD, new BsonInt64(from))
            .append(ViewFilter.TO_FIELD, OPEN)
            .append(ViewFilter.HASH_FIELD, new BsonString(row.hash()));
    }

    /**
     * The writes of an attempt's changes, added to a bulk: the close of each superseded version and a
     * new version of each added or changed row. A version read whole is closed by a replacement (the
     * same document, superseded), so that the driver sends the closes and the new versions in one
     * command: it sends updates and replacements apart. Its content never changes while it is a
     * version, so the replacement writes what the update would.
     * @param closed the stored versions it supersedes
     * @param added the rows it writes
     * @param attempt the id of the attempt, for the stored ids of its versions
     * @param from the generation the attempt started from
     * @param to the attempt's number
     */
    void addWrites(List<WriteModel<BsonDocument>> writes, String partition, List<StoredRows.Stored> closed,
            List<ResultRow> added, ObjectId attempt, long from, long to) {
        for (StoredRows.Stored version : closed) {
            writes.add(version.whole() ? closeWhole(version.document(), partition, from, to)
                    : close(version.storedId(), partition, from, to));
        }
        for (ResultRow row : added) {
            writes.add(upsert(version(row, partition, attempt, to)));
        }
    }

    /**
     * Writes a version whatever was there, so a write sent twice leaves one version. The filter
     * names the stored id and the partition: on a target sharded by the partition field an upsert
     * must name the whole shard key to reach its shard.
     */
    ReplaceOneModel<BsonDocument> upsert(BsonDocument version) {
        return new ReplaceOneModel<>(new BsonDocument("_id", version.get("_id")).append(partitionField,
                version.get(partitionField)), version, new ReplaceOptions().upsert(true));
    }

    /**
     * Supersedes a version of generation {@code from} in generation {@code to}: one still open, or
     * closed by an attempt numbered between the two — an attempt that can never flip, whose close
     * landed late. A version closed by any other number stays as it is: so an attempt that lost its
     * lease can only ever close versions still open, which undoing its number reopens rightly.
     * @param from the generation the attempt started from, whose version it closes
     * @param to the attempt's number
     */
    UpdateOneModel<BsonDocument> close(BsonValue storedId, String partition, long from, long to) {
        return new UpdateOneModel<>(closable(storedId, partition, from, to),
                new BsonDocument("$set", new BsonDocument(ViewFilter.TO_FIELD, new BsonInt64(to))));
    }

    /** The close of {@link #close}, as a replacement of a version read whole. */
    ReplaceOneModel<BsonDocument> closeWhole(BsonDocument version, String partition, long from, long to) {
        BsonDocument superseded = version.clone();
        superseded.put(ViewFilter.TO_FIELD, new BsonInt64(to));
        return new ReplaceOneModel<>(closable(version.get("_id"), partition, from, to), superseded);
    }

    private BsonDocument closable(BsonValue storedId, String partition, long from, long to) {
        BsonArray closable = new BsonArray(List.of(new BsonDocument(ViewFilter.TO_FIELD, OPEN),
                new BsonDocument(ViewFilter.TO_FIELD, new BsonDocument("$gt", new BsonInt64(from))
                    .append("$lt", new BsonInt64(to)))));
        return new BsonDocument("_id", storedId).append(partitionField, new BsonString(partition))
            .append("$or", closable);
    }

    /**
     * Checks on a row id of the result that the target id strategy keeps partitions and attempts
     * apart, as sharing a target and writing a version beside another need.
     */
    void verify(BsonValue sampleRowId, String partition) throws ViewRunException {
        try {
            TargetIdCheck.verify(targetId, hasher, sampleRowId, partition);
        }
        catch (IllegalStateException ex) {
            throw new ViewRunException(String.valueOf(ex.getMessage()));
        }
    }

    /** The rows of a partition with these stored ids. */
    BsonDocument byIds(List<BsonValue> storedIds, String partition) {
        return new BsonDocument("_id", new BsonDocument("$in", new BsonArray(storedIds)))
            .append(partitionField, new BsonString(partition));
    }

    /** The rows of a partition in a generation (none before the first). */
    BsonDocument inGeneration(String partition, @Nullable Generation generation) {
        return ViewFilter.of(partitionField, partition, generation);
    }

    /**
     * The current versions the attempts numbered between two numbers (both left out) added: those
     * after a generation and before an attempt, none of which flipped.
     */
    BsonDocument addedBetween(String partition, long above, long below) {
        return new BsonDocument(partitionField, new BsonString(partition)).append(ViewFilter.TO_FIELD, OPEN)
            .append(ViewFilter.FROM_FIELD, new BsonDocument("$gt", new BsonInt64(above)).append("$lt", new BsonInt64(below)));
    }

    /** The versions the attempts numbered between two numbers (both left out) closed. */
    BsonDocument closedBetween(String partition, long above, long below) {
        return new BsonDocument(partitionField, new BsonString(partition)).append(ViewFilter.TO_FIELD,
                new BsonDocument("$gt", new BsonInt64(above)).append("$lt", new BsonInt64(Math.min(below, ViewFilter.OPEN))));
    }

    /** The versions one attempt added, whatever closed them since. */
    BsonDocument addedBy(String partition, long attempt) {
        return partition(partition).append(ViewFilter.FROM_FIELD, new BsonInt64(attempt));
    }

    /** The versions one attempt closed. */
    BsonDocument closedBy(String partition, long attempt) {
        return partition(partition).append(ViewFilter.TO_FIELD, new BsonInt64(attempt));
    }

    static BsonDocument addedAbove(String partitionField, String partition, long generation) {
        return new BsonDocument(partitionField, new BsonString(partition)).append(ViewFilter.TO_FIELD, OPEN)
            .append(ViewFilter.FROM_FIELD, new BsonDocument("$gt", new BsonInt64(generation)));
    }


    static BsonDocument closedAbove(String partitionField, String partition, long generation) {
        return new BsonDocument(partitionField, new BsonString(partition)).append(ViewFilter.TO_FIELD,
                new BsonDocument("$gt", new BsonInt64(generation)).append("$lt", OPEN));
    }

    /** Reopens versions: what {@link #closedBetween} selects becomes current again. */
    static BsonDocument reopen() {
        return new BsonDocument("$set", new BsonDocument(ViewFilter.TO_FIELD, OPEN));
    }

    /** The versions superseded at or before a generation: no reader of a later one sees them. */
    BsonDocument supersededBy(String partition, long generation) {
        return partition(partition).append(ViewFilter.TO_FIELD, new BsonDocument("$lte", new BsonInt64(generation)));
    }

    /** Every row version of a partition added by an attempt numbered below one, whatever closed it. */
    BsonDocument versionsBefore(String partition, long attempt) {
        return partition(partition).append(ViewFilter.TO_FIELD, new BsonDocument("$exists", BsonBoolean.TRUE))
            .append(ViewFilter.FROM_FIELD, new BsonDocument("$lt", new BsonInt64(attempt)));
    }

    /**
     * Every row of a partition the engine wrote, of any generation and format: row versions (with
     * {@code _viewTo}) and rows of the format before versions (with {@code _viewGen}); never a
     * document without those fields.
     */
    BsonDocument engineRowsOf(String partition) {
        return partition(partition).append("$or", new BsonArray(List.of(
                new BsonDocument(ViewFilter.TO_FIELD, new BsonDocument("$exists", BsonBoolean.TRUE)),
                new BsonDocument(ViewFilter.GENERATION_FIELD, new BsonDocument("$exists", BsonBoolean.TRUE)))));
    }

    /** The rows of a partition in a format before row versions: they have no {@code _viewTo}. */
    BsonDocument beforeVersions(String partition) {
        return partition(partition).append(ViewFilter.TO_FIELD, new BsonDocument("$exists", BsonBoolean.FALSE));
    }

    private BsonDocument partition(String partition) {
        return new BsonDocument(partitionField, new BsonString(partition));
    }
}
