package dev.materializer.core.write;

import java.util.List;
import java.util.Set;

import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.hash.TargetIdCheck;
import dev.materializer.core.hash.TargetIdStrategy;
import dev.materializer.core.view.ViewFilter;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

/**
 * The shape of the rows in a target: the stored {@code _id} (from the {@link TargetIdStrategy}),
 * the content, the partition field, {@code _viewGen} and {@code _viewHash}; and the filters that
 * select a partition's rows. Every filter of a write names the partition, so writes to a target
 * sharded by the partition field go to one shard.
 *
 * <p>Immutable and thread-safe.
 */
final class TargetRows {

    /** The writes and reads of a pass go to the server in groups of this size. */
    static final int GROUP_SIZE = 1000;

    private final String partitionField;

    private final TargetIdStrategy targetId;

    private final RowHasher hasher;

    private final Set<String> engineFields;

    TargetRows(String partitionField, TargetIdStrategy targetId, RowHasher hasher) {
        this.partitionField = partitionField;
        this.targetId = targetId;
        this.hasher = hasher;
        this.engineFields = Set.of("_id", partitionField, ViewFilter.GENERATION_FIELD, ViewFilter.HASH_FIELD);
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

    BsonValue storedId(BsonValue rowId, String partition, ObjectId generation) {
        return targetId.targetId(rowId, partition, generation);
    }

    /** The row as stored in a generation. */
    BsonDocument stored(BsonValue rowId, BsonDocument content, String hash, String partition, ObjectId generation) {
        BsonDocument stored = new BsonDocument("_id", storedId(rowId, partition, generation));
        stored.putAll(content);
        return stored.append(partitionField, new BsonString(partition))
            .append(ViewFilter.GENERATION_FIELD, new BsonObjectId(generation))
            .append(ViewFilter.HASH_FIELD, new BsonString(hash));
    }

    /**
     * Writes a stored row whatever was there. The filter names the stored id and the partition: on
     * a target sharded by the partition field (its shard key {@code {<partition>: 1, _id: 1}} or a
     * hashed partition), an upsert must name the whole shard key to reach its shard.
     */
    ReplaceOneModel<BsonDocument> upsert(BsonDocument stored) {
        return new ReplaceOneModel<>(new BsonDocument("_id", stored.get("_id")).append(partitionField,
                stored.get(partitionField)), stored, new ReplaceOptions().upsert(true));
    }

    /**
     * Checks on a row id of the result that the target id strategy keeps partitions and
     * generations apart, as sharing a target and writing a generation beside another need.
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

    /** The rows of a partition in one generation. */
    BsonDocument inGeneration(String partition, ObjectId generation) {
        return ViewFilter.of(partitionField, partition, generation);
    }

    /** The rows of a partition written by an engine older than generations: they have no {@code _viewGen}. */
    BsonDocument withoutGeneration(String partition) {
        return new BsonDocument(partitionField, new BsonString(partition)).append(ViewFilter.GENERATION_FIELD,
                new BsonDocument("$exists", BsonBoolean.FALSE));
    }
}
