package dev.materializer.core.write;

import java.util.List;
import java.util.Set;

import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.UpdateOneModel;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.hash.TargetIdCheck;
import dev.materializer.core.hash.TargetIdStrategy;
import dev.materializer.core.view.Generation;
import dev.materializer.core.view.ViewFilter;
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
     * Writes a version whatever was there, so a write sent twice leaves one version. The filter
     * names the stored id and the partition: on a target sharded by the partition field an upsert
     * must name the whole shard key to reach its shard.
     */
    ReplaceOneModel<BsonDocument> upsert(BsonDocument version) {
        return new ReplaceOneModel<>(new BsonDocument("_id", version.get("_id")).append(partitionField,
                version.get(partitionField)), version, new ReplaceOptions().upsert(true));
    }

    /** Supersedes a current version in generation {@code to}; a version already closed stays as it is. */
    UpdateOneModel<BsonDocument> close(BsonValue storedId, String partition, long to) {
        return new UpdateOneModel<>(new BsonDocument("_id", storedId)
            .append(partitionField, new BsonString(partition))
            .append(ViewFilter.TO_FIELD, OPEN),
                new BsonDocument("$set", new BsonDocument(ViewFilter.TO_FIELD, new BsonInt64(to))));
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

    /** The current versions an attempt above {@code generation} added and did not flip. */
    BsonDocument addedAbove(String partition, long generation) {
        return addedAbove(partitionField, partition, generation);
    }

    static BsonDocument addedAbove(String partitionField, String partition, long generation) {
        return new BsonDocument(partitionField, new BsonString(partition)).append(ViewFilter.TO_FIELD, OPEN)
            .append(ViewFilter.FROM_FIELD, new BsonDocument("$gt", new BsonInt64(generation)));
    }

    /** The versions an attempt above {@code generation} closed and did not flip. */
    BsonDocument closedAbove(String partition, long generation) {
        return closedAbove(partitionField, partition, generation);
    }

    static BsonDocument closedAbove(String partitionField, String partition, long generation) {
        return new BsonDocument(partitionField, new BsonString(partition)).append(ViewFilter.TO_FIELD,
                new BsonDocument("$gt", new BsonInt64(generation)).append("$lt", OPEN));
    }

    /** Reopens versions: what {@link #closedAbove} selects becomes current again. */
    static BsonDocument reopen() {
        return new BsonDocument("$set", new BsonDocument(ViewFilter.TO_FIELD, OPEN));
    }

    /** The versions superseded at or before a generation: no reader of a later one sees them. */
    BsonDocument supersededBy(String partition, long generation) {
        return partition(partition).append(ViewFilter.TO_FIELD, new BsonDocument("$lte", new BsonInt64(generation)));
    }

    /** Every row version of a partition, of any generation. */
    BsonDocument versionsOf(String partition) {
        return partition(partition).append(ViewFilter.TO_FIELD, new BsonDocument("$exists", BsonBoolean.TRUE));
    }

    /** The rows of a partition in a format before row versions: they have no {@code _viewTo}. */
    BsonDocument beforeVersions(String partition) {
        return partition(partition).append(ViewFilter.TO_FIELD, new BsonDocument("$exists", BsonBoolean.FALSE));
    }

    private BsonDocument partition(String partition) {
        return new BsonDocument(partitionField, new BsonString(partition));
    }
}
