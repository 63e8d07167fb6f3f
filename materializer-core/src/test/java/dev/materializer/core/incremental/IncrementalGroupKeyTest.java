package dev.materializer.core.incremental;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;

import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

/** {@link GroupKey}: keys are equal exactly when MongoDB's $group puts them into one group. */
class IncrementalGroupKeyTest {

    private static GroupKey key(BsonValue value) {
        return GroupKey.of(value);
    }

    private static GroupKey key(String json) {
        return GroupKey.of(BsonDocument.parse("{v: " + json + "}").get("v"));
    }

    private static void assertSame(GroupKey a, GroupKey b) {
        assertThat(a).isEqualTo(b);
        assertThat(a.hashCode()).isEqualTo(b.hashCode());
    }

    @Test
    void numbersOfEveryTypeWithOneValueAreOneKey() {
        GroupKey one = key(new BsonInt32(1));

        assertSame(one, key(new BsonInt64(1)));
        assertSame(one, key(new BsonDouble(1.0)));
        assertSame(one, key(new BsonDecimal128(Decimal128.parse("1.00"))));
        assertThat(one).isNotEqualTo(key(new BsonDouble(1.5))).isNotEqualTo(key(new BsonString("1")));
    }

    @Test
    void zerosNansAndInfinitiesAreEachOneKey() {
        assertSame(key(new BsonDouble(-0.0)), key(new BsonInt32(0)));
        assertSame(key(new BsonDecimal128(Decimal128.parse("-0"))), key(new BsonInt64(0)));
        assertSame(key(new BsonDecimal128(Decimal128.parse("-0.000"))), key(new BsonDouble(0.0)));
        assertSame(key(new BsonDouble(Double.NaN)), key(new BsonDecimal128(Decimal128.NaN)));
        assertSame(key(new BsonDouble(Double.longBitsToDouble(0x7ff8000000000001L))), key(new BsonDouble(Double.NaN)));
        assertSame(key(new BsonDouble(Double.POSITIVE_INFINITY)), key(new BsonDecimal128(Decimal128.POSITIVE_INFINITY)));
        assertThat(key(new BsonDouble(Double.POSITIVE_INFINITY))).isNotEqualTo(key(new BsonDouble(Double.NEGATIVE_INFINITY)));
        assertThat(key(new BsonDouble(Double.NaN))).isNotEqualTo(key(new BsonInt32(0)));
    }

    @Test
    void numbersCompareExactly() {
        // 2^53 + 1 has no double; MongoDB compares a long with a double exactly
        assertThat(key(new BsonInt64((1L << 53) + 1))).isNotEqualTo(key(new BsonDouble(1L << 53)));
        assertSame(key(new BsonInt64(1L << 53)), key(new BsonDouble(1L << 53)));
        assertThat(key(new BsonDecimal128(Decimal128.parse("0.1")))).isNotEqualTo(key(new BsonDouble(0.1)));
        assertSame(key(new BsonDecimal128(Decimal128.parse("0.5"))), key(new BsonDouble(0.5)));
        assertSame(key(new BsonDecimal128(new Decimal128(new BigDecimal("-12.50")))), key(new BsonDouble(-12.5)));
    }

    @Test
    void arraysAndDocumentsCompareWholeWithTheseRulesInside() {
        assertSame(key("[1, 2]"), key("[1.0, {$numberLong: '2'}]"));
        assertThat(key("[1, 2]")).isNotEqualTo(key("[2, 1]")).isNotEqualTo(key("1")).isNotEqualTo(key("[1, 2, 3]"));
        assertSame(key("{a: 1, b: [2]}"), key("{a: 1.0, b: [2.0]}"));
        // Field order matters, as it does in MongoDB's comparison of documents
        assertThat(key("{a: 1, b: 2}")).isNotEqualTo(key("{b: 2, a: 1}"));
        assertThat(key("{a: 1}")).isNotEqualTo(key("{a: 1, b: null}")).isNotEqualTo(key("{b: 1}"));
        assertThat(key("{}")).isNotEqualTo(GroupKey.nullKey());
    }

    @Test
    void nullIsOnlyNull() {
        assertSame(GroupKey.of(null), GroupKey.nullKey());
        assertSame(key(BsonNull.VALUE), GroupKey.nullKey());
        assertThat(GroupKey.nullKey().isNull()).isTrue();
        assertThat(key(new BsonUndefined())).isNotEqualTo(GroupKey.nullKey());
        assertThat(key(new BsonString(""))).isNotEqualTo(GroupKey.nullKey());
        assertThat(key("[]")).isNotEqualTo(GroupKey.nullKey());
    }

    @Test
    void otherTypesCompareByTypeAndValue() {
        assertSame(key(new BsonString("a")), key(new BsonSymbol("a")));
        assertThat(key(new BsonDateTime(5))).isNotEqualTo(key(new BsonTimestamp(5))).isNotEqualTo(key(new BsonInt64(5)));
        assertSame(key(new BsonDateTime(5)), key(new BsonDateTime(5)));
        assertThat(key("true")).isNotEqualTo(key("1"));
    }

    @Test
    void aKeyKeepsItsFirstFormAndIsNotChangedThroughItsValue() {
        BsonDocument value = BsonDocument.parse("{a: {$numberLong: '1'}}");
        GroupKey key = key(value);

        value.put("a", new BsonInt32(2));
        key.value().asDocument().put("a", new BsonInt32(3));

        assertThat(key.value()).isEqualTo(BsonDocument.parse("{a: {$numberLong: '1'}}"));
        assertThat(key.toString()).contains("1");
    }

    @Test
    void equalValuesInAnyNumericFormAreOneKeyAndDifferentValuesAreNot() {
        Seeds.check(200, gen -> {
            long a = gen.between(-1_000_000L, 1_000_000L);
            long b = gen.oneIn(3) ? a : gen.between(-1_000_000L, 1_000_000L);
            BsonValue left = anyForm(gen, a);
            BsonValue right = anyForm(gen, b);
            boolean nested = gen.anyBoolean();
            GroupKey leftKey = key(wrap(nested, left));
            GroupKey rightKey = key(wrap(nested, right));
            if (a == b) {
                assertSame(leftKey, rightKey);
            } else {
                assertThat(leftKey).as("%s vs %s", left, right).isNotEqualTo(rightKey);
            }
        });
    }

    /** The number alone, or inside a document and an array, where the same rules hold. */
    private static BsonValue wrap(boolean nested, BsonValue value) {
        return nested ? new BsonDocument("n", value).append("l", new BsonArray(List.of(value, new BsonString("x"))))
                : value;
    }

    private static BsonValue anyForm(Gen gen, long value) {
        return switch (gen.between(0, 3)) {
            case 0 -> new BsonInt32((int) value);
            case 1 -> new BsonInt64(value);
            case 2 -> new BsonDouble(value);
            default -> new BsonDecimal128(new Decimal128(new BigDecimal(value).setScale(gen.between(0, 4))));
        };
    }
}
