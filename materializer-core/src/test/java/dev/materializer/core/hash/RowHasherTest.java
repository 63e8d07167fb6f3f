package dev.materializer.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;

import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class RowHasherTest {

    private static final ObjectId OBJECT_ID = new ObjectId("65f0c0ffee0000000000abcd");

    private final RowHasher hasher = new RowHasher();

    private String hashOf(BsonValue value) {
        return hasher.hash(new BsonDocument("v", value));
    }

    static Stream<Arguments> valuesThatLookAlikeButDiffer() {
        return Stream.of(
            Arguments.of("int32 1 / int64 1", new BsonInt32(1), new BsonInt64(1)),
            Arguments.of("int32 1 / double 1.0", new BsonInt32(1), new BsonDouble(1.0)),
            Arguments.of("int64 1 / double 1.0", new BsonInt64(1), new BsonDouble(1.0)),
            Arguments.of("double 1.0 / decimal 1", new BsonDouble(1.0), new BsonDecimal128(Decimal128.parse("1"))),
            Arguments.of("int32 1 / decimal 1", new BsonInt32(1), new BsonDecimal128(Decimal128.parse("1"))),
            Arguments.of("decimal 1 / decimal 1.0", new BsonDecimal128(Decimal128.parse("1")),
                new BsonDecimal128(Decimal128.parse("1.0"))),
            Arguments.of("double 0.0 / double -0.0", new BsonDouble(0.0), new BsonDouble(-0.0)),
            Arguments.of("ObjectId / its hex", new BsonObjectId(OBJECT_ID), new BsonString(OBJECT_ID.toHexString())),
            Arguments.of("string / symbol", new BsonString("a"), new BsonSymbol("a")),
            Arguments.of("string / javascript", new BsonString("a"), new BsonJavaScript("a")),
            Arguments.of("binary subtype 0 / 128", new BsonBinary((byte) 0, new byte[] {1, 2}),
                new BsonBinary(BsonBinarySubType.USER_DEFINED, new byte[] {1, 2})),
            Arguments.of("binary / other bytes", new BsonBinary(new byte[] {1, 2}), new BsonBinary(new byte[] {1, 3})),
            Arguments.of("date / int64", new BsonDateTime(1_700_000_000_000L), new BsonInt64(1_700_000_000_000L)),
            Arguments.of("date / timestamp", new BsonDateTime(42), new BsonTimestamp(42)),
            Arguments.of("timestamp / its increment", new BsonTimestamp(7, 1), new BsonTimestamp(7, 2)),
            Arguments.of("regex without / with flag", new BsonRegularExpression("^a"), new BsonRegularExpression("^a", "i")),
            Arguments.of("regex / its pattern", new BsonRegularExpression("^a"), new BsonString("^a")),
            Arguments.of("null / undefined", BsonNull.VALUE, new BsonUndefined()),
            Arguments.of("null / empty string", BsonNull.VALUE, new BsonString("")),
            Arguments.of("empty document / empty array", new BsonDocument(), new BsonArray()),
            Arguments.of("array order", new BsonArray(List.of(new BsonInt32(1), new BsonInt32(2))),
                new BsonArray(List.of(new BsonInt32(2), new BsonInt32(1)))),
            Arguments.of("nested array order", BsonArray.parse("[[1, 2], [3]]"), BsonArray.parse("[[2, 1], [3]]")),
            Arguments.of("nested array grouping", BsonArray.parse("[[1, 2], [3]]"), BsonArray.parse("[[1], [2, 3]]")),
            Arguments.of("string split across keys", BsonDocument.parse("{a: 'bc'}"), BsonDocument.parse("{ab: 'c'}")),
            Arguments.of("array / its single element", new BsonArray(List.of(new BsonInt32(1))), new BsonInt32(1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valuesThatLookAlikeButDiffer")
    void valuesThatLookAlikeButDifferHashApart(String name, BsonValue one, BsonValue other) {
        assertThat(hashOf(one)).isNotEqualTo(hashOf(other));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valuesThatLookAlikeButDiffer")
    void valuesThatLookAlikeButDifferHaveDifferentIdKeys(String name, BsonValue one, BsonValue other) {
        assertThat(hasher.idKey(one)).isNotEqualTo(hasher.idKey(other));
    }

    @Test
    void theOrderOfKeysCountsAtEveryDepthAsMongoDbComparesDocuments() {
        BsonDocument row = BsonDocument.parse("{a: 1, b: {x: 1, y: [{p: 1, q: 2}]}, c: 'z'}");

        assertThat(hasher.hash(BsonDocument.parse("{a: 1, b: {x: 1, y: [{p: 1, q: 2}]}, c: 'z'}")))
            .isEqualTo(hasher.hash(row));
        assertThat(hasher.hash(BsonDocument.parse("{c: 'z', a: 1, b: {x: 1, y: [{p: 1, q: 2}]}}")))
            .as("top level").isNotEqualTo(hasher.hash(row));
        assertThat(hasher.hash(BsonDocument.parse("{a: 1, b: {y: [{p: 1, q: 2}], x: 1}, c: 'z'}")))
            .as("an embedded document").isNotEqualTo(hasher.hash(row));
        assertThat(hasher.hash(BsonDocument.parse("{a: 1, b: {x: 1, y: [{q: 2, p: 1}]}, c: 'z'}")))
            .as("a document in an array").isNotEqualTo(hasher.hash(row));
    }

    @Test
    void noHashEqualsAHashOfTheFormatBeforeItWhichSortedTheKeys() throws Exception {
        // {a: "x", b: int32 1} in the format before: keys sorted, no mark. Its keys are in order, so only
        // the mark keeps a stored hash of {b, a} from passing for the new hash of {a, b}.
        ByteArrayOutputStream sorted = new ByteArrayOutputStream();
        sorted.write(2);
        sorted.write(new byte[] {1, 'a', 0x02, 1, 'x'});
        sorted.write(new byte[] {1, 'b', 0x10, 0, 0, 0, 1});
        String before = Base64.getUrlEncoder().withoutPadding()
            .encodeToString(MessageDigest.getInstance("SHA-256").digest(sorted.toByteArray()));

        assertThat(hasher.hash(new BsonDocument("a", new BsonString("x")).append("b", new BsonInt32(1))))
            .isNotEqualTo(before);
    }

    @Test
    void aNullValueDiffersFromAMissingKey() {
        assertThat(hasher.hash(BsonDocument.parse("{a: 1, b: null}"))).isNotEqualTo(hasher.hash(BsonDocument.parse("{a: 1}")));
    }

    @Test
    void theHashDoesNotDependOnHowTheDocumentIsHeld() {
        BsonDocument row = BsonDocument.parse("{b: [1, {d: 2, c: 'x'}], a: {$date: '2024-01-01T00:00:00Z'}}");

        assertThat(hasher.hash(new RawBsonDocument(row, new org.bson.codecs.BsonDocumentCodec()))).isEqualTo(hasher.hash(row));
    }

    @Test
    void theHashIsTheDigestOfTheCanonicalEncoding() throws Exception {
        // {b: int32 1, a: "x"}: the format mark, then keys in their order, each with type byte and value;
        // lengths and counts as varints.
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(new byte[] {(byte) 0x80, 0x00});
        expected.write(2);
        expected.write(new byte[] {1, 'b', 0x10, 0, 0, 0, 1});
        expected.write(new byte[] {1, 'a', 0x02, 1, 'x'});
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(expected.toByteArray());

        String hash = hasher.hash(new BsonDocument("b", new BsonInt32(1)).append("a", new BsonString("x")));

        assertThat(hash).isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
    }

    @Test
    void theHashOfARowIsFixedAcrossRunsAndMachines() {
        // A change of this value changes every stored hash: every row is then written once again.
        BsonDocument row = BsonDocument.parse("{name: 'Zoë', qty: {$numberLong: '3'}, price: {$numberDecimal: '9.90'},"
            + " at: {$date: '2024-01-01T00:00:00Z'}, tags: ['a', 'b'], owner: {$oid: '65f0c0ffee0000000000abcd'}}");

        assertThat(hasher.hash(row)).isEqualTo("a14xe0wYCEU6uZ_cvLCGgosKHNX5P00HVgDkA4AvRPs");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "Zoë", "€uro", "\uD83D\uDE00 emoji", "\u0000nul", "日本語"})
    void stringsAreWrittenAsTheirUtf8Bytes(String text) {
        ByteSink sink = ByteSink.keeping(4);
        sink.writeString(text);
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);

        byte[] written = sink.bytes();

        assertThat(written[0]).isEqualTo((byte) utf8.length);
        assertThat(java.util.Arrays.copyOfRange(written, 1, written.length)).isEqualTo(utf8);
    }

    @Test
    void loneSurrogatesStayApartInsteadOfBecomingTheSameReplacement() {
        assertThat(hashOf(new BsonString("\uD800"))).isNotEqualTo(hashOf(new BsonString("\uDC00")));
        assertThat(hasher.idKey(new BsonString("\uD800"))).isNotEqualTo(hasher.idKey(new BsonString("?")));
    }

    @Test
    void aLargeRowFedInChunksHasTheDigestOfAllItsBytes() throws Exception {
        BsonDocument row = new BsonDocument();
        for (int i = 0; i < 300; i++) {
            row.append("field" + i, new BsonString("value ".repeat(i % 7) + i));
        }
        row.append("blob", new BsonBinary(new byte[5000]));
        ByteSink kept = ByteSink.keeping(16);
        CanonicalBson.writeContent(row, kept);
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(kept.bytes());

        assertThat(hasher.hash(row)).isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
    }

    @Test
    void theDigestCanBeChosenAmongTheJdkDigests() {
        BsonDocument row = BsonDocument.parse("{a: 1}");

        assertThat(new RowHasher("SHA-1").hash(row)).isNotEqualTo(hasher.hash(row)).hasSize(27);
        assertThat(new RowHasher("MD5").hash(row)).hasSize(22);
        assertThat(hasher.hash(row)).hasSize(43);
        assertThat(hasher.algorithm()).isEqualTo(RowHasher.DEFAULT_ALGORITHM).isEqualTo("SHA-256");
    }

    @Test
    void anUnknownDigestIsRefused() {
        assertThatThrownBy(() -> new RowHasher("SHA-3"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("algorithm must be one of").hasMessageContaining("SHA-3");
    }

    @Test
    void equalIdsOfTheSameTypeHaveTheSameKey() {
        assertThat(hasher.idKey(new BsonObjectId(new ObjectId(OBJECT_ID.toHexString()))))
            .isEqualTo(hasher.idKey(new BsonObjectId(OBJECT_ID)));
        assertThat(hasher.idKey(new BsonString("a"))).isEqualTo(hasher.idKey(new BsonString("a")));
        assertThat(hasher.idKey(BsonDocument.parse("{p: 'x', n: 1}"))).isEqualTo(hasher.idKey(BsonDocument.parse("{p: 'x', n: 1}")));
    }

    @Test
    void theIdKeyOfADocumentKeepsTheOrderOfItsKeys() {
        assertThat(hasher.idKey(BsonDocument.parse("{a: 1, b: 2}"))).isNotEqualTo(hasher.idKey(BsonDocument.parse("{b: 2, a: 1}")));
        assertThat(hasher.idKey(BsonDocument.parse("{x: {a: 1, b: 2}}")))
            .isNotEqualTo(hasher.idKey(BsonDocument.parse("{x: {b: 2, a: 1}}")));
    }

    @Test
    void theIdKeyOfAStringDiffersFromTheIdKeyOfADocumentThatSpellsIt() {
        assertThat(hasher.idKey(new BsonString("{\"a\": 1}"))).isNotEqualTo(hasher.idKey(BsonDocument.parse("{a: 1}")));
    }

    @Test
    void theIdKeyIsShortForAnObjectId() {
        assertThat(hasher.idKey(new BsonObjectId(OBJECT_ID))).hasSize(18);
    }
}
