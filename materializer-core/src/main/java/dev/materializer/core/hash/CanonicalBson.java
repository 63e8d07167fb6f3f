package dev.materializer.core.hash;

import java.util.Map;
import java.util.Set;

import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDbPointer;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonRegularExpression;
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
            // doubleToLongBits: one NaN; 0.0 and -0.0 stay apart as BSON stores them apart.
            case DOUBLE -> out.writeLong(Double.doubleToLongBits(value.asDouble().getValue()));
            case STRING -> out.writeString(value.asString().getValue());
            case DOCUMENT -> writeDocument(value.asDocument(), out);
            case ARRAY -> writeArray(value.asArray(), out);
            case BINARY -> writeBinary(value.asBinary(), out);
            case OBJECT_ID -> out.writeObjectId(value.asObjectId().getValue());
            case BOOLEAN -> out.writeByte(value.asBoolean().getValue() ? 1 : 0);
            case DATE_TIME -> out.writeLong(value.asDateTime().getValue());
            case REGULAR_EXPRESSION -> writeRegularExpression(value.asRegularExpression(), out);
            case DB_POINTER -> writeDbPointer(value.asDBPointer(), out);
            case JAVASCRIPT -> out.writeString(value.asJavaScript().getCode());
            case SYMBOL -> out.writeString(value.asSymbol().getSymbol());
            case JAVASCRIPT_WITH_SCOPE -> writeJavaScriptWithScope(value.asJavaScriptWithScope(), out);
            case INT32 -> out.writeInt(value.asInt32().getValue());
            case TIMESTAMP -> out.writeLong(value.asTimestamp().getValue());
            case INT64 -> out.writeLong(value.asInt64().getValue());
            case DECIMAL128 -> writeDecimal128(value.asDecimal128().getValue(), out);
            case NULL, UNDEFINED, MIN_KEY, MAX_KEY -> {
                // The type says it all.
            }
            default -> throw new IllegalArgumentException("cannot encode a BSON value of type " + type);
        }
    }

    /** A binary: its subtype, its length, its bytes. */
    private static void writeBinary(BsonBinary binary, ByteSink out) {
        out.writeByte(binary.getType());
        out.writeLength(binary.getData().length);
        out.writeBytes(binary.getData());
    }

    /** A regular expression: its pattern, then its options. */
    private static void writeRegularExpression(BsonRegularExpression regex, ByteSink out) {
        out.writeString(regex.getPattern());
        out.writeString(regex.getOptions());
    }

    /** A DBPointer: its namespace, then its id. */
    private static void writeDbPointer(BsonDbPointer pointer, ByteSink out) {
        out.writeString(pointer.getNamespace());
        out.writeObjectId(pointer.getId());
    }

    /** Code with a scope: the code, then the scope as a document. */
    private static void writeJavaScriptWithScope(BsonJavaScriptWithScope code, ByteSink out) {
        out.writeString(code.getCode());
        writeDocument(code.getScope(), out);
    }

    /** A decimal: its high bits, then its low bits. */
    private static void writeDecimal128(Decimal128 decimal, ByteSink out) {
        out.writeLong(decimal.getHigh());
        out.writeLong(decimal.getLow());
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
