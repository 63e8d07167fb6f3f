package dev.materializer.sample.views;

import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/** Turns values read from MongoDB into values that serialise as plain JSON (ids as hex, dates as instants). */
final class PlainJson {

    private PlainJson() {
    }

    static @Nullable Object of(@Nullable Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, @Nullable Object> plain = new LinkedHashMap<>();
            map.forEach((key, item) -> plain.put(String.valueOf(key), of(item)));
            return plain;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(PlainJson::of).toList();
        }
        if (value instanceof ObjectId id) {
            return id.toHexString();
        }
        if (value instanceof Date date) {
            return date.toInstant();
        }
        if (value instanceof Decimal128 decimal) {
            return decimal.bigDecimalValue();
        }
        return value;
    }
}
