package dev.materializer.core.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.materializer.core.Generation;
import dev.materializer.core.ViewState;
import java.time.Instant;
import java.util.stream.Stream;

import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ViewStatusTest {

    private static final Instant AT = Instant.parse("2025-03-01T10:15:30.123Z");

    private static final Instant FLIPPED = Instant.parse("2025-03-01T10:14:00.456Z");

    private static final Instant UNTIL = Instant.parse("2025-03-01T10:16:30.789Z");

    private static final Generation CURRENT = Generation.of(12);

    private static final Generation PREVIOUS = Generation.of(9);

    private static final Generation LEGACY = Generation.legacy(new ObjectId("65e1a0000000000000000001"));

    private static final ViewStatus FULL = new ViewStatus(ViewState.ERRORED, "the result has more than 10 rows", AT,
            CURRENT, new ViewStatus.Previous(PREVIOUS, FLIPPED), new ViewStatus.Lease("host-1-pass-7", UNTIL), 5, 13);

    @Test
    void everyFieldIsStoredUnderItsName() {
        assertThat(FULL.toBson()).isEqualTo(new BsonDocument("state", new BsonString("errored"))
            .append("lastError", new BsonString("the result has more than 10 rows"))
            .append("at", new BsonDateTime(AT.toEpochMilli()))
            .append("generation", new BsonInt64(12))
            .append("previous", new BsonDocument("generation", new BsonInt64(9))
                .append("flippedAt", new BsonDateTime(FLIPPED.toEpochMilli())))
            .append("lease", new BsonDocument("owner", new BsonString("host-1-pass-7"))
                .append("until", new BsonDateTime(UNTIL.toEpochMilli())))
            .append("version", new BsonInt64(5))
            .append("attempts", new BsonInt64(13)));
    }

    @Test
    void aStoredStatusReadsBackEveryField() {
        BsonDocument stored = BsonDocument.parse("""
                {state: 'cycle', lastError: 'boom', at: {$date: '2025-03-01T10:15:30.123Z'},
                 generation: {$numberLong: '12'},
                 previous: {generation: {$oid: '65e1a0000000000000000001'}, flippedAt: {$date: '2025-03-01T10:14:00.456Z'}},
                 lease: {owner: 'o', until: {$date: '2025-03-01T10:16:30.789Z'}}, version: 3, attempts: {$numberLong: '14'}}
                """);

        assertThat(ViewStatus.fromBson(stored)).isEqualTo(new ViewStatus(ViewState.CYCLE, "boom", AT, CURRENT,
                new ViewStatus.Previous(LEGACY, FLIPPED), new ViewStatus.Lease("o", UNTIL), 3, 14));
    }

    @Test
    void aGenerationOfTheFormatBeforeRowVersionsReadsAsLegacy() {
        ViewStatus status = ViewStatus.fromBson(BsonDocument.parse("{generation: {$oid: '65e1a0000000000000000001'}}"));

        assertThat(status.generation()).isEqualTo(LEGACY);
        assertThat(status.generation().isLegacy()).isTrue();
        assertThat(status.generation()).hasToString("65e1a0000000000000000001");
        assertThat(ViewStatus.fromBson(status.toBson())).isEqualTo(status);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statuses")
    void theRoundTripIsLossless(String why, ViewStatus status) {
        assertThat(ViewStatus.fromBson(status.toBson())).isEqualTo(status);
    }

    static Stream<Arguments> statuses() {
        return Stream.of(Arguments.of("every field", FULL),
                Arguments.of("no field", ViewStatus.NONE),
                Arguments.of("ok after the first run", new ViewStatus(ViewState.OK, null, AT, CURRENT, null, null)),
                Arguments.of("after the first flip", new ViewStatus(ViewState.OK, null, AT, CURRENT,
                        new ViewStatus.Previous(null, FLIPPED), null)),
                Arguments.of("a lease only", new ViewStatus(null, null, null, null, null,
                        new ViewStatus.Lease("o", UNTIL))),
                Arguments.of("generations before the previous one", new ViewStatus(ViewState.OK, null, AT, CURRENT,
                        new ViewStatus.Previous(PREVIOUS, FLIPPED), java.util.List.of(
                                new ViewStatus.Previous(Generation.of(3), FLIPPED.minusSeconds(2)),
                                new ViewStatus.Previous(Generation.of(7), FLIPPED.minusSeconds(1))), null, 4, 12)));
    }

    @Test
    void earlierGenerationsAreStoredOldestFirstAndAnEntryThatNamesNoGenerationOrTimeReadsAsNone() {
        BsonDocument stored = BsonDocument.parse("""
                {generation: {$numberLong: '12'},
                 earlier: [{generation: {$numberLong: '3'}, flippedAt: {$date: '2025-03-01T10:14:00.456Z'}},
                           {generation: null, flippedAt: {$date: '2025-03-01T10:14:00.456Z'}},
                           {generation: {$numberLong: '5'}}, 'junk',
                           {generation: {$numberLong: '7'}, flippedAt: {$date: '2025-03-01T10:14:00.456Z'}}]}
                """);

        assertThat(ViewStatus.fromBson(stored).earlier()).containsExactly(
                new ViewStatus.Previous(Generation.of(3), FLIPPED), new ViewStatus.Previous(Generation.of(7), FLIPPED));
        assertThat(ViewStatus.fromBson(BsonDocument.parse("{earlier: 'not a list'}")).earlier()).isEmpty();
    }

    @Test
    void absentFieldsAreNotStored() {
        assertThat(ViewStatus.NONE.toBson()).isEmpty();
        assertThat(new ViewStatus(ViewState.OK, null, AT, null, null, null).toBson())
            .isEqualTo(BsonDocument.parse("{state: 'ok', at: {$date: '2025-03-01T10:15:30.123Z'}}"));
    }

    @Test
    void theFirstFlipStoresAnExplicitNullPreviousGeneration() {
        BsonDocument stored = new ViewStatus(ViewState.OK, null, null, CURRENT, new ViewStatus.Previous(null, FLIPPED), null)
            .toBson();

        assertThat(stored.getDocument("previous").get("generation")).isEqualTo(BsonNull.VALUE);
        assertThat(ViewStatus.fromBson(stored).previous()).isEqualTo(new ViewStatus.Previous(null, FLIPPED));
    }

    @Test
    void timesAreKeptToTheMillisecondAsBsonStoresThem() {
        Instant precise = Instant.parse("2025-03-01T10:15:30.123456789Z");
        ViewStatus status = new ViewStatus(ViewState.OK, null, precise, CURRENT,
                new ViewStatus.Previous(PREVIOUS, precise), new ViewStatus.Lease("o", precise));

        assertThat(status.at()).isEqualTo(Instant.parse("2025-03-01T10:15:30.123Z"));
        assertThat(status.previous().flippedAt()).isEqualTo(Instant.parse("2025-03-01T10:15:30.123Z"));
        assertThat(status.lease().until()).isEqualTo(Instant.parse("2025-03-01T10:15:30.123Z"));
        assertThat(ViewStatus.fromBson(status.toBson())).isEqualTo(status);
    }

    @Test
    void timesBeforeTheEpochRoundTrip() {
        ViewStatus status = new ViewStatus(ViewState.OK, null, Instant.parse("1969-12-31T23:59:59.999500Z"), null, null,
                null);

        assertThat(status.at()).isEqualTo(Instant.parse("1969-12-31T23:59:59.999Z"));
        assertThat(ViewStatus.fromBson(status.toBson())).isEqualTo(status);
    }

    @Test
    void noStatusReadsAsNone() {
        assertThat(ViewStatus.fromBson(null)).isEqualTo(ViewStatus.NONE);
        assertThat(ViewStatus.fromBson(new BsonDocument())).isEqualTo(ViewStatus.NONE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistyped")
    void aMissingOrMistypedFieldReadsAsAbsent(String why, String json, ViewStatus expected) {
        assertThat(ViewStatus.fromBson(BsonDocument.parse(json))).isEqualTo(expected);
    }

    static Stream<Arguments> mistyped() {
        String lease = "{owner: 'o', generation: {$oid: '65e1a0000000000000000003'}, until: {$date: '2025-03-01T10:16:30.789Z'}}";
        return Stream.of(
                Arguments.of("a numeric state", "{state: 1, lastError: 'e'}", new ViewStatus(null, "e", null, null, null, null)),
                Arguments.of("an unknown state", "{state: 'active'}", ViewStatus.NONE),
                Arguments.of("a numeric lastError", "{state: 'ok', lastError: 3}",
                        new ViewStatus(ViewState.OK, null, null, null, null, null)),
                Arguments.of("a text time", "{at: '2025-03-01T10:15:30Z'}", ViewStatus.NONE),
                Arguments.of("a numeric time", "{at: 1740824130123}", ViewStatus.NONE),
                Arguments.of("a text generation", "{generation: '65e1a0000000000000000002'}", ViewStatus.NONE),
                Arguments.of("a text previous", "{previous: 'x'}", ViewStatus.NONE),
                Arguments.of("a previous with mistyped parts", "{previous: {generation: 'x', flippedAt: 'y'}}",
                        new ViewStatus(null, null, null, null, new ViewStatus.Previous(null, null), null)),
                Arguments.of("a text lease", "{lease: 'x'}", ViewStatus.NONE),
                Arguments.of("a lease without owner", "{lease: {generation: {$oid: '65e1a0000000000000000003'}, "
                        + "until: {$date: '2025-03-01T10:16:30.789Z'}}}", ViewStatus.NONE),
                Arguments.of("a lease with a numeric owner", "{lease: " + lease.replace("'o'", "5") + "}", ViewStatus.NONE),
                Arguments.of("a generation of zero", "{generation: 0}", ViewStatus.NONE),
                Arguments.of("a negative generation", "{generation: {$numberLong: '-3'}}", ViewStatus.NONE),
                Arguments.of("a generation as a double", "{generation: 3.0}", ViewStatus.NONE),
                Arguments.of("a lease without until", "{lease: {owner: 'o', generation: {$oid: '65e1a0000000000000000003'}}}",
                        ViewStatus.NONE),
                Arguments.of("a lease with a numeric until", "{lease: " + lease.replace("{$date: '2025-03-01T10:16:30.789Z'}", "5") + "}",
                        ViewStatus.NONE));
    }
}
