package dev.materializer.core.incremental;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonRegularExpression;
import org.junit.jupiter.api.Test;

/** {@link KeyRestriction}: the filters it puts around the pipeline, and the row ids of keys. */
class IncrementalKeyRestrictionTest {

    private static final ViewShape BY_CUSTOMER = IncrementalShapeAnalysisTest.shape(
            "[{$group: {_id: '$customer', n: {$sum: 1}}}, {$sort: {n: -1}}]");

    private static final ViewShape BY_CUSTOMER_AND_REGION = IncrementalShapeAnalysisTest.shape(
            "[{$project: {c: '$customer', region: '$address.region'}}, {$group: {_id: {c: '$c', r: '$region'}}}]");

    private static GroupKey key(String json) {
        return GroupKey.of(BsonDocument.parse("{v: " + json + "}").get("v"));
    }

    private static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }

    @Test
    void theKeysOfOnePathAreMatchedOnTheSourcePathFirstAndOnTheRowIdLast() {
        List<BsonDocument> pipeline = KeyRestriction.of(BY_CUSTOMER).pipeline(List.of(key("'ann'"), key("null"), key("1")));

        assertThat(pipeline).containsExactly(
                doc("{$match: {customer: {$in: ['ann', null, 1]}}}"),
                doc("{$group: {_id: '$customer', n: {$sum: 1}}}"),
                doc("{$sort: {n: -1}}"),
                doc("{$match: {$expr: {$or: [{$eq: [{$ifNull: ['$_id', null]}, {$literal: 'ann'}]}, "
                        + "{$eq: [{$ifNull: ['$_id', null]}, {$literal: null}]}, "
                        + "{$eq: [{$ifNull: ['$_id', null]}, {$literal: 1}]}]}}}"));
    }

    @Test
    void oneKeyIsAnEqualityAndKeysMongoDbTakesForOneAreOnce() {
        KeyRestriction restriction = KeyRestriction.of(BY_CUSTOMER);
        List<GroupKey> keys = List.of(key("1"), key("1.0"), key("{$numberLong: '1'}"));

        assertThat(restriction.keyFilter(keys)).isEqualTo(doc("{customer: 1}"));
        assertThat(restriction.rowFilter(keys)).isEqualTo(doc("{$expr: {$eq: [{$ifNull: ['$_id', null]}, {$literal: 1}]}}"));
    }

    @Test
    void aCompoundKeyIsAnOrOfConjunctionsOnTheSourcePathsAndAMissingPartIsMatchedAsNull() {
        BsonDocument filter = KeyRestriction.of(BY_CUSTOMER_AND_REGION)
            .keyFilter(List.of(key("{c: 'ann', r: 'north'}"), key("{r: 'south'}"), key("{c: null}")));

        assertThat(filter).isEqualTo(doc("{$or: [{customer: 'ann', 'address.region': 'north'}, "
                + "{customer: null, 'address.region': 'south'}, {customer: null, 'address.region': null}]}"));
        assertThat(KeyRestriction.of(BY_CUSTOMER_AND_REGION).keyFilter(List.of(key("{c: 'ann', r: 'north'}"))))
            .isEqualTo(doc("{customer: 'ann', 'address.region': 'north'}"));
    }

    @Test
    void twoNamesOfOnePathAreOneCondition() {
        ViewShape twice = IncrementalShapeAnalysisTest.shape("[{$group: {_id: {a: '$c', b: '$c'}}}]");

        assertThat(KeyRestriction.of(twice).keyFilter(List.of(key("{a: 1, b: 1}")))).isEqualTo(doc("{c: 1}"));
    }

    @Test
    void aKeyNoQueryFindsExactlyLeavesOutTheFirstFilterButNotTheLast() {
        KeyRestriction restriction = KeyRestriction.of(BY_CUSTOMER);

        for (GroupKey odd : List.of(key("[1, 2]"), key("{first: 'ann'}"), GroupKey.of(new BsonDouble(Double.NaN)),
                GroupKey.of(new BsonRegularExpression("^a")), key("{$minKey: 1}"))) {
            List<GroupKey> keys = List.of(key("'ann'"), odd);
            assertThat(restriction.keyFilter(keys)).as("%s", odd).isNull();
            List<BsonDocument> pipeline = restriction.pipeline(keys);
            assertThat(pipeline).hasSize(3);
            assertThat(pipeline.get(0)).isEqualTo(doc("{$group: {_id: '$customer', n: {$sum: 1}}}"));
            assertThat(pipeline.get(2).getDocument("$match")).isEqualTo(restriction.rowFilter(keys));
        }
        assertThat(KeyRestriction.of(BY_CUSTOMER_AND_REGION).keyFilter(List.of(key("{c: ['a'], r: 'n'}")))).isNull();
    }

    @Test
    void aKeyOfTheSourceIdIsMatchedOnTheId() {
        ViewShape perDocument = IncrementalShapeAnalysisTest.shape("[{$project: {qty: 1}}]");

        assertThat(KeyRestriction.of(perDocument).keyFilter(List.of(key("1"), key("2"))))
            .isEqualTo(doc("{_id: {$in: [1, 2]}}"));
    }

    @Test
    void theRowIdOfAKeyIsTheKeyInTheFormOfTheRowId() {
        KeyRestriction restriction = KeyRestriction.of(BY_CUSTOMER_AND_REGION);

        assertThat(restriction.rowIdOf(key("{c: 'ann', r: 1}"))).isEqualTo(doc("{c: 'ann', r: 1}"));
        assertThat(restriction.keyOfRowId(doc("{c: 'ann', r: 1.0}"))).isEqualTo(key("{c: 'ann', r: 1}"));
        assertThat(restriction.keyOfRowId(null)).isEqualTo(GroupKey.nullKey());
    }

    @Test
    void aStageOfTheResultIsACopy() {
        KeyRestriction restriction = KeyRestriction.of(BY_CUSTOMER);

        restriction.pipeline(List.of(key("1"))).get(1).put("$limit", new BsonDouble(1));

        assertThat(restriction.pipeline(List.of(key("1"))).get(1)).isEqualTo(doc("{$group: {_id: '$customer', n: {$sum: 1}}}"));
    }

    @Test
    void thereIsNoRestrictionOfNoKeyNorOfAFullView() {
        assertThatThrownBy(() -> KeyRestriction.of(BY_CUSTOMER).pipeline(List.of()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one key");
        assertThatThrownBy(() -> KeyRestriction.of(IncrementalShapeAnalysisTest.shape("[{$limit: 1}]")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not incremental");
    }
}
