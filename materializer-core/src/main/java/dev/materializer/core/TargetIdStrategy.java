package dev.materializer.core;

import org.bson.BsonValue;
import org.bson.types.ObjectId;

/**
 * How the stored {@code _id} of a target row is built from the row's own {@code _id}, its partition
 * and its generation. It must differ between partitions and between generations, so partitions
 * with equal keys share a target and a new generation can be written beside the current one.
 */
@FunctionalInterface
public interface TargetIdStrategy {

    /**
     * The stored {@code _id}.
     * @param rowId the {@code _id} the pipeline gave the row
     * @param partition the partition of the view
     * @param generation the generation being written
     * @return the stored {@code _id}
     */
    BsonValue targetId(BsonValue rowId, String partition, ObjectId generation);
}
