package dev.materializer.core.hash;

import org.bson.BsonValue;

/**
 * Checks that a {@link TargetIdStrategy} keeps partitions and generations apart, as the engine
 * needs: two partitions, or two generations, must never give the same stored {@code _id}.
 */
public final class TargetIdCheck {

    private TargetIdCheck() {
    }

    /**
     * Checks the strategy on a sample row id.
     * @param strategy the strategy
     * @param hasher the hasher whose id keys compare stored ids
     * @param rowId a row id of the result
     * @param partition the partition of the view
     * @throws IllegalStateException naming the collision when the strategy collides
     */
    public static void verify(TargetIdStrategy strategy, RowHasher hasher, BsonValue rowId, String partition) {
        throw new UnsupportedOperationException("TargetIdCheck.verify: not implemented yet");
    }
}
