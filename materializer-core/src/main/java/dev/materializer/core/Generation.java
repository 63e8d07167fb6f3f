package dev.materializer.core;

import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * A generation of a view: the number of the pass whose result readers read. Numbers grow with every
 * pass that writes (a counter in the view's status, moved by compare-and-set), so generations of a
 * view are totally ordered, and a stored row version is visible in generation {@code g} when it
 * appeared at or before {@code g} and was not superseded by {@code g} (see {@link ViewFilter}).
 *
 * <p>A status written by an engine before row versions names its generation by an
 * {@link ObjectId}; such a generation reads as {@linkplain #isLegacy() legacy}, with number 0, and
 * the first pass of this engine rebuilds the view in the versioned format.
 *
 * <p>Immutable and thread-safe.
 *
 * @param number the generation's number, positive; 0 for a legacy generation
 * @param legacy the id of a generation written by an engine before row versions, or null
 */
public record Generation(long number, @Nullable ObjectId legacy) {

    /** The field of the current generation in a view's status. */
    public static final String STATUS_FIELD = "generation";

    /** Checks that exactly one of the number and the legacy id names the generation. */
    public Generation {
        if (legacy == null ? number <= 0 : number != 0) {
            throw new IllegalArgumentException("a generation is a positive number or a legacy id, got " + number
                    + " and " + legacy);
        }
    }

    /**
     * A generation of row versions.
     * @param number its number, positive
     * @return the generation
     */
    public static Generation of(long number) {
        return new Generation(number, null);
    }

    /**
     * A generation written by an engine before row versions.
     * @param id its id
     * @return the generation
     */
    public static Generation legacy(ObjectId id) {
        return new Generation(0, id);
    }

    /**
     * Reads a stored generation: an integer, or the ObjectId of a legacy one.
     * @param value the stored value
     * @return the generation, or null when the value names none
     */
    public static @Nullable Generation fromBson(@Nullable BsonValue value) {
        if (value == null) {
            return null;
        }
        if (value.isObjectId()) {
            return legacy(value.asObjectId().getValue());
        }
        if (value.isInt64() || value.isInt32()) {
            long number = value.asNumber().longValue();
            return number > 0 ? of(number) : null;
        }
        return null;
    }

    /**
     * Reads a generation as a decoded {@code Document} holds it: a {@code Long} or {@code Integer},
     * or the {@code ObjectId} of a legacy one.
     * @param value the stored value
     * @return the generation, or null when the value names none
     */
    public static @Nullable Generation fromValue(@Nullable Object value) {
        if (value instanceof Long || value instanceof Integer) {
            return fromBson(new BsonInt64(((Number) value).longValue()));
        }
        return value instanceof ObjectId id ? legacy(id) : null;
    }

    /** Whether an engine before row versions wrote it. */
    public boolean isLegacy() {
        return legacy != null;
    }

    /** The generation as stored in a status. */
    public BsonValue toBson() {
        return legacy != null ? new BsonObjectId(legacy) : new BsonInt64(number);
    }

    /** The number, or the hex of a legacy id. */
    @Override
    public String toString() {
        return legacy != null ? legacy.toHexString() : Long.toString(number);
    }
}
