package dev.materializer.core.incremental;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.jspecify.annotations.Nullable;

/**
 * The key of some rows of a view: the value a source document's key paths give, in the form of the
 * row {@code _id} it produces (see {@link ViewShape#keyOf}), compared as MongoDB's {@code $group}
 * compares group keys, so that two keys are equal exactly when MongoDB puts their documents into
 * one group:
 *
 * <ul>
 * <li>numbers compare by value whatever their type: {@code 1} (int32), {@code 1L} (int64),
 *     {@code 1.0} (double) and {@code 1.00} (decimal128) are one key; {@code -0.0} is {@code 0}; every
 *     NaN is one key; infinities of double and decimal128 are equal; values compare exactly (a long
 *     above 2^53 is not the nearest double, decimal {@code 0.1} is not double {@code 0.1});</li>
 * <li>a string and a symbol with the same text are equal (MongoDB compares them as one type);</li>
 * <li>arrays compare element by element, documents field by field in order, names included
 *     ({@code {a: 1, b: 2}} is not {@code {b: 2, a: 1}}), with these rules inside;</li>
 * <li>every other value compares by type and content ({@code null} is only {@code null}; a date is
 *     never a timestamp).</li>
 * </ul>
 *
 * <p>Strings compare by their code points, as the simple collation does; a collection or query
 * with another collation groups differently, which this class does not model.
 *
 * <p>A key keeps the first value it was made of (so {@link #value()} of a key made of {@code 1L}
 * is {@code 1L}); MongoDB may give the group's {@code _id} in any of its equal forms, so compare
 * row ids through keys, never as BSON values.
 *
 * <p>Immutable and thread-safe: the value is copied in and out.
 */
public final class GroupKey {

    private static final GroupKey NULL = new GroupKey(BsonNull.VALUE);

    private final BsonValue value;

    private final int hash;

    private GroupKey(BsonValue value) {
        this.value = value;
        this.hash = hashOf(value);
    }

    /**
     * The key of a value.
     * @param value the value, as a row {@code _id} or a group key; Java null is the key {@code null}
     * @return the key
     */
    public static GroupKey of(@Nullable BsonValue value) {
        if (value == null || value.isNull()) {
            return NULL;
        }
        return new GroupKey(copy(value));
    }

    /** The key {@code null}, which in a {@code $group} on one field path also stands for a missing field. */
    public static GroupKey nullKey() {
        return NULL;
    }

    /**
     * The value of the key, a copy.
     * @return the value it was made of
     */
    public BsonValue value() {
        return copy(value);
    }

    /** Whether the key is {@code null}. */
    public boolean isNull() {
        return value.isNull();
    }

    /** The value itself, for this package: never hand it out. */
    BsonValue raw() {
        return value;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof GroupKey key && hash == key.hash && same(value, key.value);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return new BsonDocument("key", value).toJson().replaceFirst("^\\{\\s*\"key\"\\s*:\\s*", "")
            .replaceFirst("\\s*}$", "");
    }

    /**
     * Whether two values are equal as MongoDB's {@code $group} compares keys; see the class comment.
     * @param a a value
     * @param b another value
     * @return true when they would be one group
     */
    static boolean same(BsonValue a, BsonValue b) {
        Kind kindA = Kind.of(a);
        if (kindA != Kind.of(b)) {
            return false;
        }
        return switch (kindA) {
            case NUMBER -> Number.of(a).equals(Number.of(b));
            case STRING -> text(a).equals(text(b));
            case DOCUMENT -> sameDocuments(a.asDocument(), b.asDocument());
            case ARRAY -> sameArrays(a.asArray(), b.asArray());
            case OTHER -> a.equals(b);
        };
    }

    private static boolean sameDocuments(BsonDocument a, BsonDocument b) {
        if (a.size() != b.size()) {
            return false;
        }
        Iterator<Map.Entry<String, BsonValue>> right = b.entrySet().iterator();
        for (Map.Entry<String, BsonValue> left : a.entrySet()) {
            Map.Entry<String, BsonValue> other = right.next();
            if (!left.getKey().equals(other.getKey()) || !same(left.getValue(), other.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameArrays(BsonArray a, BsonArray b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!same(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static int hashOf(BsonValue value) {
        return switch (Kind.of(value)) {
            case NUMBER -> Number.of(value).hashCode();
            case STRING -> 31 * text(value).hashCode() + 1;
            case DOCUMENT -> {
                int hash = 2;
                for (Map.Entry<String, BsonValue> entry : value.asDocument().entrySet()) {
                    hash = 31 * (31 * hash + entry.getKey().hashCode()) + hashOf(entry.getValue());
                }
                yield hash;
            }
            case ARRAY -> {
                int hash = 3;
                for (BsonValue element : value.asArray()) {
                    hash = 31 * hash + hashOf(element);
                }
                yield hash;
            }
            case OTHER -> 31 * value.getBsonType().hashCode() + value.hashCode();
        };
    }

    private static String text(BsonValue value) {
        return value.isString() ? value.asString().getValue() : value.asSymbol().getSymbol();
    }

    /** Documents and arrays are mutable: copy them. */
    static BsonValue copy(BsonValue value) {
        if (value.isDocument()) {
            return value.asDocument().clone();
        }
        if (value.isArray()) {
            return value.asArray().clone();
        }
        return value;
    }

    /** How values compare: by the comparison class MongoDB puts their type in. */
    private enum Kind {
        NUMBER, STRING, DOCUMENT, ARRAY, OTHER;

        static Kind of(BsonValue value) {
            return switch (value.getBsonType()) {
                case INT32, INT64, DOUBLE, DECIMAL128 -> NUMBER;
                case STRING, SYMBOL -> STRING;
                case DOCUMENT -> DOCUMENT;
                case ARRAY -> ARRAY;
                default -> OTHER;
            };
        }
    }

    /**
     * A number by its exact value: a finite one as a {@link BigDecimal} without trailing zeros (so
     * 1, 1.0 and 1.00 are one), NaN and the infinities apart.
     */
    private record Number(int special, @Nullable BigDecimal finite) {

        private static final int FINITE = 0;
        private static final int NAN = 1;
        private static final int POSITIVE_INFINITY = 2;
        private static final int NEGATIVE_INFINITY = 3;

        static Number of(BsonValue value) {
            BsonType type = value.getBsonType();
            return switch (type) {
                case INT32 -> finite(BigDecimal.valueOf(value.asInt32().getValue()));
                case INT64 -> finite(BigDecimal.valueOf(value.asInt64().getValue()));
                case DOUBLE -> ofDouble(value.asDouble().getValue());
                case DECIMAL128 -> ofDecimal(value.asDecimal128().getValue());
                default -> throw new IllegalArgumentException("not a number: " + type);
            };
        }

        private static Number ofDouble(double value) {
            if (Double.isNaN(value)) {
                return new Number(NAN, null);
            }
            if (Double.isInfinite(value)) {
                return new Number(value > 0 ? POSITIVE_INFINITY : NEGATIVE_INFINITY, null);
            }
            // new BigDecimal(double) is the exact binary value; -0.0 becomes 0
            return finite(new BigDecimal(value));
        }

        private static Number ofDecimal(Decimal128 value) {
            if (value.isNaN()) {
                return new Number(NAN, null);
            }
            if (value.isInfinite()) {
                return new Number(value.isNegative() ? NEGATIVE_INFINITY : POSITIVE_INFINITY, null);
            }
            if (value.isNegative()) {
                // bigDecimalValue refuses negative zero, which equals zero: convert the magnitude
                Decimal128 magnitude = Decimal128.fromIEEE754BIDEncoding(value.getHigh() ^ Long.MIN_VALUE, value.getLow());
                return finite(magnitude.bigDecimalValue().negate());
            }
            return finite(value.bigDecimalValue());
        }

        private static Number finite(BigDecimal value) {
            BigDecimal normal = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
            return new Number(FINITE, normal);
        }
    }
}
