package dev.materializer.core.hash;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;

import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDbPointer;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonRegularExpression;
import org.bson.BsonTimestamp;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * The canonical encoding of a BSON value: one byte naming the BSON type, then the value. Strings,
 * binaries and keys are preceded by their length, documents and arrays by their count of entries,
 * so the encoding is prefix-free and two different values never give the same bytes.
 *
 * <p>Documents are written with their keys sorted (by code point, which is the order of their UTF-8
 * bytes) when hashing content, or in their own order for ids, as MongoDB compares {@code _id}s.
 * Arrays keep their order. The bytes depend on nothing of the JVM (no identity hash, no default
 * charset, big-endian numbers).
 *
 * <p>Stateless and thread-safe.
 */
final class CanonicalBson {

    private static final Comparator<Map.Entry<String, BsonValue>> BY_KEY =
        (first, second) -> first.getKey().compareTo(second.getKey());

    private static final Comparator<Map.Entry<String, BsonValue>> BY_KEY_CODE_POINTS =
        (first, second) -> compareByCodePoint(first.getKey(), second.getKey());

    /** The encoding of row content: keys sorted at every depth. */
    static final CanonicalBson CONTENT = new CanonicalBson(true);

    /** The encoding of ids: keys in their own order. */
    static final CanonicalBson ID = new CanonicalBson(false);

    private final boolean sortKeys;

    private CanonicalBson(boolean sortKeys) {
        this.sortKeys = sortKeys;
    }

    void write(BsonValue value, ByteSink out) {
        BsonType type = value.getBsonType();
        out.writeByte(type.getValue());
        switch (type) {
            case DOUBLE:
                // doubleToLongBits: one NaN; 0.0 and -0.0 stay apart as BSON stores them apart.
                out.writeLong(Double.doubleToLongBits(value.asDouble().getValue()));
                break;
            case STRING:
                out.writeString(value.asString().getValue());
                break;
            case DOCUMENT:
                writeDocument(value.asDocument(), out);
                break;
            case ARRAY:
                writeArray(value.asArray(), out);
                break;
            case BINARY:
                BsonBinary binary = value.asBinary();
                out.writeByte(binary.getType());
                out.writeLength(binary.getData().length);
                out.writeBytes(binary.getData());
                break;
            case OBJECT_ID:
                out.writeObjectId(value.asObjectId().getValue());
                break;
            case BOOLEAN:
                out.writeByte(value.asBoolean().getValue() ? 1 : 0);
                break;
            case DATE_TIME:
                out.writeLong(value.asDateTime().getValue());
                break;
            case REGULAR_EXPRESSION:
                BsonRegularExpression regex = value.asRegularExpression();
                out.writeString(regex.getPattern());
                out.writeString(regex.getOptions());
                break;
            case DB_POINTER:
                BsonDbPointer pointer = value.asDBPointer();
                out.writeString(pointer.getNamespace());
                out.writeObjectId(pointer.getId());
                break;
            case JAVASCRIPT:
                out.writeString(value.asJavaScript().getCode());
                break;
            case SYMBOL:
                out.writeString(value.asSymbol().getSymbol());
                break;
            case JAVASCRIPT_WITH_SCOPE:
                BsonJavaScriptWithScope code = value.asJavaScriptWithScope();
                out.writeString(code.getCode());
                writeDocument(code.getScope(), out);
                break;
            case INT32:
                out.writeInt(value.asInt32().getValue());
                break;
            case TIMESTAMP:
                BsonTimestamp timestamp = value.asTimestamp();
                out.writeLong(timestamp.getValue());
                break;
            case INT64:
                out.writeLong(value.asInt64().getValue());
                break;
            case DECIMAL128:
                Decimal128 decimal = value.asDecimal128().getValue();
                out.writeLong(decimal.getHigh());
                out.writeLong(decimal.getLow());
                break;
            case NULL:
            case UNDEFINED:
            case MIN_KEY:
            case MAX_KEY:
                // The type says it all.
                break;
            default:
                throw new IllegalArgumentException("cannot encode a BSON value of type " + type);
        }
    }

    void writeDocument(BsonDocument document, ByteSink out) {
        Set<Map.Entry<String, BsonValue>> entries = document.entrySet();
        int count = entries.size();
        out.writeLength(count);
        if (!sortKeys || count < 2) {
            for (Map.Entry<String, BsonValue> entry : entries) {
                out.writeString(entry.getKey());
                write(entry.getValue(), out);
            }
            return;
        }
        @SuppressWarnings({"unchecked", "rawtypes"})
        Map.Entry<String, BsonValue>[] sorted = new Map.Entry[count];
        boolean surrogates = false;
        int filled = 0;
        for (Map.Entry<String, BsonValue> entry : entries) {
            sorted[filled++] = entry;
            surrogates = surrogates || hasSurrogate(entry.getKey());
        }
        // Without surrogates, UTF-16 order is code point order, and String.compareTo is the fastest.
        Arrays.sort(sorted, surrogates ? BY_KEY_CODE_POINTS : BY_KEY);
        for (Map.Entry<String, BsonValue> entry : sorted) {
            out.writeString(entry.getKey());
            write(entry.getValue(), out);
        }
    }

    private void writeArray(BsonArray array, ByteSink out) {
        out.writeLength(array.size());
        // The iterator, not get(i): a RawBsonArray finds an index by reading from its start.
        for (BsonValue value : array) {
            write(value, out);
        }
    }

    private static boolean hasSurrogate(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            if (Character.isSurrogate(text.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Compares by code point without decoding: a UTF-16 surrogate (part of a code point above
     * U+FFFF) sorts after every other char, which fixes the one place where UTF-16 order differs.
     */
    static int compareByCodePoint(String first, String second) {
        int length = Math.min(first.length(), second.length());
        for (int i = 0; i < length; i++) {
            char a = first.charAt(i);
            char b = second.charAt(i);
            if (a != b) {
                return codePointRank(a) - codePointRank(b);
            }
        }
        return first.length() - second.length();
    }

    private static int codePointRank(char c) {
        if (c < Character.MIN_SURROGATE) {
            return c;
        }
        // Surrogates D800-DFFF move above FFFF; E000-FFFF move down into the gap they leave.
        return c <= Character.MAX_SURROGATE ? c + 0x2000 : c - 0x800;
    }
}
