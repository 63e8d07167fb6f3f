package dev.materializer.core.write;

import java.math.BigDecimal;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * The order of BSON values as MongoDB sorts them (by type: null, numbers, strings, documents,
 * arrays, binary data, ObjectId, boolean, date, timestamp, regular expression; numbers by value
 * across their types; strings by code point, the simple collation), for merging a sorted result with
 * sorted stored rows.
 *
 * <p>The merge stays correct whatever this order says: it only matches rows whose ids are equal
 * type for type, and treats every row it did not match as added or removed. Where this order and
 * the server's part (arrays sort by their elements here, by their smallest element on the server),
 * a pass only writes more. Stateless and thread-safe.
 */
final class BsonOrder implements Comparator<BsonValue> {

    static final BsonOrder INSTANCE = new BsonOrder();

    private BsonOrder() {
    }

    @Override
    public int compare(BsonValue left, BsonValue right) {
        int byType = Integer.compare(rank(left.getBsonType()), rank(right.getBsonType()));
        if (byType != 0) {
            return byType;
        }
        return switch (left.getBsonType()) {
            case INT32, INT64, DOUBLE, DECIMAL128 -> compareNumbers(left, right);
            case STRING -> compareText(left.asString().getValue(), right.asString().getValue());
            case SYMBOL -> compareText(left.asSymbol().getSymbol(), right.asSymbol().getSymbol());
            case DOCUMENT -> compareDocuments(left.asDocument(), right.asDocument());
            case ARRAY -> compareArrays(left.asArray(), right.asArray());
            case OBJECT_ID -> left.asObjectId().getValue().compareTo(right.asObjectId().getValue());
            case BOOLEAN -> Boolean.compare(left.asBoolean().getValue(), right.asBoolean().getValue());
            case DATE_TIME -> Long.compare(left.asDateTime().getValue(), right.asDateTime().getValue());
            case TIMESTAMP -> left.asTimestamp().compareTo(right.asTimestamp());
            case BINARY -> compareBinary(left.asBinary().getType(), left.asBinary().getData(),
                    right.asBinary().getType(), right.asBinary().getData());
            case REGULAR_EXPRESSION -> compareText(left.asRegularExpression().getPattern() + "/"
                    + left.asRegularExpression().getOptions(), right.asRegularExpression().getPattern() + "/"
                    + right.asRegularExpression().getOptions());
            default -> 0;
        };
    }

    /** The canonical type order of MongoDB; types that sort alike share a rank. */
    private static int rank(BsonType type) {
        return switch (type) {
            case MIN_KEY -> 0;
            case NULL, UNDEFINED -> 1;
            case INT32, INT64, DOUBLE, DECIMAL128 -> 2;
            case STRING, SYMBOL -> 3;
            case DOCUMENT -> 4;
            case ARRAY -> 5;
            case BINARY -> 6;
            case OBJECT_ID -> 7;
            case BOOLEAN -> 8;
            case DATE_TIME -> 9;
            case TIMESTAMP -> 10;
            case REGULAR_EXPRESSION -> 11;
            case MAX_KEY -> 13;
            default -> 12;
        };
    }

    private static int compareNumbers(BsonValue left, BsonValue right) {
        if (left.isInt32() && right.isInt32() || left.isInt64() && right.isInt64()
                || left.isInt32() && right.isInt64() || left.isInt64() && right.isInt32()) {
            return Long.compare(left.asNumber().longValue(), right.asNumber().longValue());
        }
        boolean leftNaN = isNaN(left);
        boolean rightNaN = isNaN(right);
        if (leftNaN || rightNaN) {
            // NaN sorts before every other number
            return leftNaN == rightNaN ? 0 : leftNaN ? -1 : 1;
        }
        return exact(left).compareTo(exact(right));
    }

    private static boolean isNaN(BsonValue number) {
        return number.isDouble() && Double.isNaN(number.asDouble().getValue())
                || number.isDecimal128() && number.asDecimal128().getValue().isNaN();
    }

    private static BigDecimal exact(BsonValue number) {
        return switch (number.getBsonType()) {
            case INT32 -> BigDecimal.valueOf(number.asInt32().getValue());
            case INT64 -> BigDecimal.valueOf(number.asInt64().getValue());
            case DOUBLE -> infinite(number.asDouble().getValue());
            default -> decimal(number.asDecimal128().getValue());
        };
    }

    /** Infinities as numbers beyond every finite double, so they compare as the server does. */
    private static BigDecimal infinite(double value) {
        if (Double.isInfinite(value)) {
            return value > 0 ? BigDecimal.TEN.pow(400) : BigDecimal.TEN.pow(400).negate();
        }
        return new BigDecimal(value);
    }

    private static BigDecimal decimal(Decimal128 value) {
        if (value.isInfinite()) {
            return value.isNegative() ? BigDecimal.TEN.pow(7000).negate() : BigDecimal.TEN.pow(7000);
        }
        return value.bigDecimalValue();
    }

    private static int compareText(String left, String right) {
        int length = Math.min(left.length(), right.length());
        int i = 0;
        while (i < length) {
            int a = left.codePointAt(i);
            int b = right.codePointAt(i);
            if (a != b) {
                return Integer.compare(a, b);
            }
            i += Character.charCount(a);
        }
        return Integer.compare(left.length() - i, right.length() - i);
    }

    private int compareDocuments(BsonDocument left, BsonDocument right) {
        Iterator<Map.Entry<String, BsonValue>> a = left.entrySet().iterator();
        Iterator<Map.Entry<String, BsonValue>> b = right.entrySet().iterator();
        while (a.hasNext() && b.hasNext()) {
            Map.Entry<String, BsonValue> x = a.next();
            Map.Entry<String, BsonValue> y = b.next();
            int byType = Integer.compare(rank(x.getValue().getBsonType()), rank(y.getValue().getBsonType()));
            if (byType != 0) {
                return byType;
            }
            int byName = compareText(x.getKey(), y.getKey());
            if (byName != 0) {
                return byName;
            }
            int byValue = compare(x.getValue(), y.getValue());
            if (byValue != 0) {
                return byValue;
            }
        }
        return Boolean.compare(a.hasNext(), b.hasNext());
    }

    private int compareArrays(BsonArray left, BsonArray right) {
        int length = Math.min(left.size(), right.size());
        for (int i = 0; i < length; i++) {
            int byValue = compare(left.get(i), right.get(i));
            if (byValue != 0) {
                return byValue;
            }
        }
        return Integer.compare(left.size(), right.size());
    }

    private static int compareBinary(byte leftType, byte[] left, byte rightType, byte[] right) {
        if (left.length != right.length) {
            return Integer.compare(left.length, right.length);
        }
        if (leftType != rightType) {
            return Integer.compare(leftType & 0xff, rightType & 0xff);
        }
        for (int i = 0; i < left.length; i++) {
            if (left[i] != right[i]) {
                return Integer.compare(left[i] & 0xff, right[i] & 0xff);
            }
        }
        return 0;
    }
}
