package dev.materializer.core.hash;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

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

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/** Arbitrary BSON values of every type, nested, for the property tests. */
final class BsonSamples {

    private BsonSamples() {
    }

    static Arbitrary<String> keys() {
        return Arbitraries.oneOf(
            Arbitraries.strings().withCharRange('a', 'd').ofMaxLength(3),
            Arbitraries.strings().ofMaxLength(4));
    }

    static Arbitrary<String> texts() {
        return Arbitraries.oneOf(
            Arbitraries.strings().withCharRange('a', 'c').ofMaxLength(3),
            Arbitraries.strings().ofMaxLength(12));
    }

    static Arbitrary<BsonValue> leaves() {
        return Arbitraries.oneOf(List.of(
            Arbitraries.integers().between(-3, 3).map(BsonInt32::new),
            Arbitraries.integers().map(BsonInt32::new),
            Arbitraries.longs().between(-3, 3).map(BsonInt64::new),
            Arbitraries.longs().map(BsonInt64::new),
            Arbitraries.doubles().map(BsonDouble::new),
            Combinators.combine(Arbitraries.longs().between(-1000, 1000), Arbitraries.integers().between(-3, 3))
                .as((unscaled, scale) -> new BsonDecimal128(new Decimal128(BigDecimal.valueOf(unscaled, scale)))),
            texts().map(BsonString::new),
            texts().map(BsonSymbol::new),
            texts().map(BsonJavaScript::new),
            Combinators.combine(Arbitraries.of((byte) 0, (byte) 4, (byte) 0x80), Arbitraries.bytes().array(byte[].class).ofMaxSize(6))
                .as(BsonBinary::new),
            Arbitraries.bytes().array(byte[].class).ofSize(12).map(bytes -> new BsonObjectId(new ObjectId(bytes))),
            Arbitraries.of(BsonBoolean.TRUE, BsonBoolean.FALSE),
            Arbitraries.longs().map(BsonDateTime::new),
            Arbitraries.longs().map(BsonTimestamp::new),
            Combinators.combine(texts(), Arbitraries.of("", "i", "im", "imsx"))
                .as(BsonRegularExpression::new),
            Arbitraries.of(BsonNull.VALUE, new BsonUndefined(), new BsonMinKey(), new BsonMaxKey())));
    }

    static Arbitrary<BsonValue> values(int depth) {
        if (depth == 0) {
            return leaves();
        }
        return Arbitraries.frequencyOf(
            Tuple.of(6, leaves()),
            Tuple.of(1, documents(depth - 1, 0).map(BsonValue.class::cast)),
            Tuple.of(1, values(depth - 1).list().ofMaxSize(4).map(BsonArray::new)));
    }

    static Arbitrary<BsonDocument> documents(int depth, int minSize) {
        // A list of entries rather than Arbitraries.maps, whose unique keys cost much to generate;
        // a repeated key keeps its first place and its last value.
        return Combinators.combine(keys(), values(depth)).as(Tuple::of).list().ofMinSize(minSize).ofMaxSize(6)
            .map(BsonSamples::toDocument);
    }

    private static BsonDocument toDocument(List<Tuple2<String, BsonValue>> entries) {
        BsonDocument document = new BsonDocument();
        entries.forEach(entry -> document.put(entry.get1(), entry.get2()));
        return document;
    }

    /** A copy with the keys of every document, at every depth, in a random order. */
    static BsonValue shuffled(BsonValue value, Random random) {
        if (value.isDocument()) {
            List<Map.Entry<String, BsonValue>> entries = new ArrayList<>(value.asDocument().entrySet());
            Collections.shuffle(entries, random);
            BsonDocument copy = new BsonDocument();
            for (Map.Entry<String, BsonValue> entry : entries) {
                copy.append(entry.getKey(), shuffled(entry.getValue(), random));
            }
            return copy;
        }
        if (value.isArray()) {
            BsonArray copy = new BsonArray();
            for (BsonValue element : value.asArray()) {
                copy.add(shuffled(element, random));
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
