package dev.materializer.core.hash;

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
 * <p>Documents are written with their keys in their own order, at every depth, and arrays keep
 * theirs: two values have the same bytes only when MongoDB, which compares documents field by field
 * in order, finds them equal. The bytes are stricter than MongoDB where it compares across types
 * or representations: an int 1, a long 1 and a double 1.0 differ, as do 0.0 and -0.0, decimal 1 and
 * 1.0, a string and a symbol. The bytes depend on nothing of the JVM (no identity hash, no default
 * charset, big-endian numbers).
 *
 * <p>Row content ({@link #writeContent}) begins with a format mark; ids ({@link #write}) do not, so
 * their keys stay exactly what they have always been.
 *
 * <p>Stateless and thread-safe.
 */
final class CanonicalBson {

    /**
     * The mark that begins the encoding of row content. The format before it sorted the keys of
     * every document and began with the count of keys as a minimal varint; {@code 0x80 0x00} is a
     * non-minimal varint (of 0) that it never wrote. So no content encodes now as any content
     * encoded then, and a hash stored by an engine before this format never passes for a current
     * one: such a row is rewritten at its next pass rather than kept in another order.
     */
    private static final byte[] CONTENT_FORMAT = {(byte) 0x80, 0x00};

    private CanonicalBson() {
    }

    /** Writes the content of a row: the format mark, then the document in its own order. */
    static void writeContent(BsonDocument content, ByteSink out) {
        out.writeBytes(CONTENT_FORMAT);
        writeDocument(content, out);
    }

    /** Writes a value (an id, say): its type, then the value. */
    static void write(BsonValue value, ByteSink out) {
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

    static void writeDocument(BsonDocument document, ByteSink out) {
        Set<Map.Entry<String, BsonValue>> entries = document.entrySet();
        out.writeLength(entries.size());
        for (Map.Entry<String, BsonValue> entry : entries) {
            out.writeString(entry.getKey());
            write(entry.getValue(), out);
        }
    }

    private static void writeArray(BsonArray array, ByteSink out) {
        out.writeLength(array.size());
        // The iterator, not get(i): a RawBsonArray finds an index by reading from its start.
        for (BsonValue value : array) {
            write(value, out);
        }
    }
}
