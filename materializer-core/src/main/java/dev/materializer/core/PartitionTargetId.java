package dev.materializer.core;

import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

/**
 * The default stored {@code _id}: {@code {partition, generation, id}}. A reader finds the row's own
 * key in {@code _id.id}.
 */
public final class PartitionTargetId implements TargetIdStrategy {

    /** The shared instance. */
    public static final PartitionTargetId INSTANCE = new PartitionTargetId();

    private PartitionTargetId() {
    }

    @Override
    public BsonValue targetId(BsonValue rowId, String partition, ObjectId generation) {
        return new BsonDocument("partition", new BsonString(partition))
            .append("generation", new BsonObjectId(generation))
            .append("id", rowId);
    }

    @Override
    public String toString() {
        return "PartitionTargetId{partition, generation, id}";
    }
}
