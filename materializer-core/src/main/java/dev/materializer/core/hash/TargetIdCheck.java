package dev.materializer.core.hash;

import dev.materializer.core.TargetIdStrategy;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

/**
 * Checks that a {@link TargetIdStrategy} keeps partitions and generations apart, as the engine
 * needs: two partitions, or two generations, must never give the same stored {@code _id}.
 *
 * <p>Stateless and thread-safe.
 */
public final class TargetIdCheck {

    /** Appended to the partition to make a second one that shares its prefix. */
    private static final String OTHER_PARTITION_SUFFIX = "\u0000other";

    private TargetIdCheck() {
    }

    /**
     * Checks the strategy on a sample row id: two fresh generations of the partition, and the
     * partition beside another one that starts with it, must give different stored ids.
     * @param strategy the strategy
     * @param hasher the hasher whose id keys compare stored ids
     * @param rowId a row id of the result
     * @param partition the partition of the view
     * @throws IllegalStateException naming the collision when the strategy collides
     */
    public static void verify(TargetIdStrategy strategy, RowHasher hasher, BsonValue rowId, String partition) {
        ObjectId generation = new ObjectId();
        ObjectId otherGeneration = new ObjectId();
        String otherPartition = partition + OTHER_PARTITION_SUFFIX;

        BsonValue stored = targetId(strategy, rowId, partition, generation);
        BsonValue inOtherGeneration = targetId(strategy, rowId, partition, otherGeneration);
        if (hasher.idKey(stored).equals(hasher.idKey(inOtherGeneration))) {
            throw new IllegalStateException("the targetId strategy " + describe(strategy) + " gives the same stored _id "
                + json(stored) + " for row " + json(rowId) + " of partition '" + printable(partition)
                + "' in generations " + generation + " and " + otherGeneration
                + ": it must differ between generations");
        }
        BsonValue inOtherPartition = targetId(strategy, rowId, otherPartition, generation);
        if (hasher.idKey(stored).equals(hasher.idKey(inOtherPartition))) {
            throw new IllegalStateException("the targetId strategy " + describe(strategy) + " gives the same stored _id "
                + json(stored) + " for row " + json(rowId) + " in partitions '" + printable(partition)
                + "' and '" + printable(otherPartition) + "' (generation " + generation
                + "): it must differ between partitions");
        }
    }

    private static BsonValue targetId(TargetIdStrategy strategy, BsonValue rowId, String partition,
            ObjectId generation) {
        BsonValue stored = strategy.targetId(rowId, partition, generation);
        if (stored == null) {
            throw new IllegalStateException("the targetId strategy " + describe(strategy) + " gives no stored _id (null) for row "
                + json(rowId) + " of partition '" + printable(partition) + "'");
        }
        return stored;
    }

    /** The strategy's own description, or its class when it has none. */
    private static String describe(TargetIdStrategy strategy) {
        try {
            boolean described = strategy.getClass().getMethod("toString").getDeclaringClass() != Object.class;
            return described ? strategy.toString() : strategy.getClass().getName();
        } catch (NoSuchMethodException e) {
            return strategy.getClass().getName();
        }
    }

    private static String json(BsonValue value) {
        String wrapped = new BsonDocument("_id", value).toJson();
        // {"_id": <value>} -> <value>
        return wrapped.substring("{\"_id\": ".length(), wrapped.length() - 1);
    }

    /** The partition with control characters shown, so the message says which partitions. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
