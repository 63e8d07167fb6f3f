package dev.materializer.benchmarks;

import java.util.List;
import java.util.Random;

import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/** Sample result rows, the same on every run. */
final class Rows {

    private Rows() {
    }

    /** A row of five fields, as a small view (an order line) gives. */
    static BsonDocument small() {
        return new BsonDocument("sku", new BsonString("A-1042"))
            .append("name", new BsonString("Espresso cup, white"))
            .append("qty", new BsonInt32(3))
            .append("price", new BsonDecimal128(Decimal128.parse("9.90")))
            .append("at", new BsonDateTime(1_704_067_200_000L));
    }

    /**
     * A row of 200 top-level fields: scalars of every usual type, nested documents and arrays (of
     * scalars and of documents), as a wide report view gives.
     */
    static BsonDocument large() {
        Random random = new Random(42);
        BsonDocument row = new BsonDocument();
        for (int i = 0; i < 200; i++) {
            String key = "field_" + i;
            switch (i % 10) {
                case 0:
                    row.append(key, new BsonString("text value number " + random.nextInt(100_000)));
                    break;
                case 1:
                    row.append(key, new BsonInt32(random.nextInt()));
                    break;
                case 2:
                    row.append(key, new BsonInt64(random.nextLong()));
                    break;
                case 3:
                    row.append(key, new BsonDouble(random.nextDouble() * 1000));
                    break;
                case 4:
                    row.append(key, new BsonDateTime(1_704_067_200_000L + random.nextInt(1_000_000)));
                    break;
                case 5:
                    row.append(key, nested(random));
                    break;
                case 6:
                    BsonArray numbers = new BsonArray();
                    for (int n = 0; n < 10; n++) {
                        numbers.add(new BsonInt32(random.nextInt(1000)));
                    }
                    row.append(key, numbers);
                    break;
                case 7:
                    BsonArray lines = new BsonArray();
                    for (int n = 0; n < 3; n++) {
                        lines.add(nested(random));
                    }
                    row.append(key, lines);
                    break;
                case 8:
                    row.append(key, new BsonObjectId(new ObjectId(random.nextInt(1 << 30), random.nextInt(1 << 24))));
                    break;
                default:
                    row.append(key, random.nextBoolean() ? BsonBoolean.TRUE : BsonNull.VALUE);
                    break;
            }
        }
        return row;
    }

    private static BsonDocument nested(Random random) {
        return new BsonDocument("code", new BsonString("C" + random.nextInt(10_000)))
            .append("qty", new BsonInt32(random.nextInt(50)))
            .append("price", new BsonDecimal128(Decimal128.parse(random.nextInt(1000) + ".99")))
            .append("ok", BsonBoolean.valueOf(random.nextBoolean()))
            .append("tags", new BsonArray(List.of(new BsonString("a"), new BsonString("b"))));
    }
}
