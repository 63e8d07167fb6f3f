package dev.materializer.core.hash;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Weighted;

/** Random BSON values of every type, nested, for the seeded property tests. */
final class BsonSamples {

    private BsonSamples() {
    }

    /** A key: often a short one of a few letters, so that keys collide; else any chars. */
    static String key(Gen gen) {
        return gen.anyBoolean() ? gen.string(0, 3, "abcd") : gen.text(0, 4);
    }

    /** A text: often a short one of a few letters, so that texts collide; else any chars. */
    static String text(Gen gen) {
        return gen.anyBoolean() ? gen.string(0, 3, "abc") : gen.text(0, 12);
    }

    /** A value of any type but document and array, each type as likely; numbers small or of any size. */
    static BsonValue leaf(Gen gen) {
        return switch (gen.between(0, 16)) {
            case 0 -> new BsonInt32(gen.between(-3, 3));
            case 1 -> new BsonInt32(gen.anyInt());
            case 2 -> new BsonInt64(gen.between(-3L, 3L));
            case 3 -> new BsonInt64(gen.anyLong());
            case 4 -> new BsonDouble(gen.anyDouble());
            case 5 -> new BsonDecimal128(new Decimal128(
                BigDecimal.valueOf(gen.between(-1000L, 1000L), gen.between(-3, 3))));
            case 6 -> new BsonString(text(gen));
            case 7 -> new BsonSymbol(text(gen));
            case 8 -> new BsonJavaScript(text(gen));
            case 9 -> new BsonBinary(gen.oneOf((byte) 0, (byte) 4, (byte) 0x80), gen.bytes(gen.between(0, 6)));
            case 10 -> new BsonObjectId(new ObjectId(gen.bytes(12)));
            case 11 -> gen.oneOf(BsonBoolean.TRUE, BsonBoolean.FALSE);
            case 12 -> new BsonDateTime(gen.anyLong());
            case 13 -> new BsonTimestamp(gen.anyLong());
            case 14 -> new BsonRegularExpression(text(gen), gen.oneOf("", "i", "im", "imsx"));
            default -> gen.oneOf(BsonNull.VALUE, new BsonUndefined(), new BsonMinKey(), new BsonMaxKey());
        };
    }

    /** A value nested at most {@code depth} deep: mostly leaves, sometimes a document or an array. */
    static BsonValue value(Gen gen, int depth) {
        if (depth == 0) {
            return leaf(gen);
        }
        return new Weighted<Supplier<BsonValue>>()
            .or(6, () -> leaf(gen))
            .or(1, () -> document(gen, depth - 1, 0))
            .or(1, () -> new BsonArray(gen.listOf(0, 4, () -> value(gen, depth - 1))))
            .pick(gen).get();
    }

    /**
     * A document of {@code minSize} to 6 entries nested at most {@code depth} deep; a repeated key
     * keeps its first place and its last value, so a document may have fewer keys than entries.
     */
    static BsonDocument document(Gen gen, int depth, int minSize) {
        BsonDocument document = new BsonDocument();
        int entries = gen.between(minSize, 6);
        for (int i = 0; i < entries; i++) {
            document.put(key(gen), value(gen, depth));
        }
        return document;
    }

    /** A copy with the keys of every document, at every depth, in a random order. */
    static BsonValue shuffled(BsonValue value, Gen gen) {
        if (value.isDocument()) {
            List<Map.Entry<String, BsonValue>> entries = gen.shuffle(new ArrayList<>(value.asDocument().entrySet()));
            BsonDocument copy = new BsonDocument();
            for (Map.Entry<String, BsonValue> entry : entries) {
                copy.append(entry.getKey(), shuffled(entry.getValue(), gen));
            }
            return copy;
        }
        if (value.isArray()) {
            BsonArray copy = new BsonArray();
            for (BsonValue element : value.asArray()) {
                copy.add(shuffled(element, gen));
            }
            return copy;
        }
        return value;
    }

    /** A place in a tree of documents and arrays that holds a value. */
    interface Slot {
        BsonValue get();

        void set(BsonValue value);
    }

    /** Every place under the root that holds a value (containers included), depth first. */
    static List<Slot> slots(BsonValue root) {
        List<Slot> slots = new ArrayList<>();
        collect(root, slots);
        return slots;
    }

    private static void collect(BsonValue container, List<Slot> slots) {
        if (container.isDocument()) {
            BsonDocument document = container.asDocument();
            for (String key : document.keySet()) {
                slots.add(new Slot() {
                    @Override
                    public BsonValue get() {
                        return document.get(key);
                    }

                    @Override
                    public void set(BsonValue value) {
                        document.put(key, value);
                    }
                });
                collect(document.get(key), slots);
            }
        } else if (container.isArray()) {
            BsonArray array = container.asArray();
            for (int i = 0; i < array.size(); i++) {
                int index = i;
                slots.add(new Slot() {
                    @Override
                    public BsonValue get() {
                        return array.get(index);
                    }

                    @Override
                    public void set(BsonValue value) {
                        array.set(index, value);
                    }
                });
                collect(array.get(index), slots);
            }
        }
    }
}
