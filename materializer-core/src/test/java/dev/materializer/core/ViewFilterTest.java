package dev.materializer.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class ViewFilterTest {

    private static final ObjectId LEGACY = new ObjectId("65e1a0000000000000000002");

    private static final String NOTHING = "{_part: 'acme', _viewTo: {$in: []}}";

    @Test
    void aViewThatRanFiltersItsPartitionAndTheVersionsItsGenerationSees() {
        Document view = new Document("_id", "revenue").append("_part", "acme")
            .append("_materializerStatus", new Document("state", "ok").append("generation", 12L));

        assertThat(bson(ViewFilter.of(view))).isEqualTo(BsonDocument.parse(
                "{_part: 'acme', _viewTo: {$gt: {$numberLong: '12'}}, _viewFrom: {$lte: {$numberLong: '12'}}}"));
    }

    @Test
    void aGenerationWrittenInTheTargetAndPartitionTheDocumentNamesIsRead() {
        Document view = new Document("_id", "revenue").append("_part", "acme").append("targetCollection", "revenue")
            .append("_materializerStatus", new Document("generation", 12L)
                .append("target", new Document("collection", "revenue").append("partition", "acme")));

        assertThat(bson(ViewFilter.of(view))).isEqualTo(BsonDocument.parse(
                "{_part: 'acme', _viewTo: {$gt: {$numberLong: '12'}}, _viewFrom: {$lte: {$numberLong: '12'}}}"));
    }

    @Test
    void aGenerationWrittenInAnotherTargetOrPartitionMatchesNothingUntilTheFirstPassThere() {
        Document retargeted = new Document("_id", "revenue").append("_part", "acme").append("targetCollection", "best")
            .append("_materializerStatus", new Document("generation", 12L)
                .append("target", new Document("collection", "revenue").append("partition", "acme")));
        Document moved = new Document("_id", "revenue").append("_part", "globex").append("targetCollection", "revenue")
            .append("_materializerStatus", new Document("generation", 12L)
                .append("target", new Document("collection", "revenue").append("partition", "acme")));

        assertThat(bson(ViewFilter.of(retargeted))).isEqualTo(BsonDocument.parse(NOTHING));
        assertThat(bson(ViewFilter.of(moved))).isEqualTo(BsonDocument.parse("{_part: 'globex', _viewTo: {$in: []}}"));
    }

    @Test
    void aGenerationStoredAsAnInt32ReadsAsItsNumber() {
        Document view = new Document("_id", "revenue").append("_part", "acme")
            .append("_materializerStatus", new Document("generation", 3));

        assertThat(bson(ViewFilter.of(view))).isEqualTo(BsonDocument.parse(
                "{_part: 'acme', _viewTo: {$gt: {$numberLong: '3'}}, _viewFrom: {$lte: {$numberLong: '3'}}}"));
    }

    @Test
    void aViewWrittenBeforeRowVersionsFiltersTheRowsOfItsGenerationId() {
        Document view = new Document("_id", "revenue").append("_part", "acme")
            .append("_materializerStatus", new Document("state", "ok").append("generation", LEGACY));

        assertThat(bson(ViewFilter.of(view)))
            .isEqualTo(BsonDocument.parse("{_part: 'acme', _viewGen: {$oid: '65e1a0000000000000000002'}}"));
    }

    @Test
    void aViewNeverRunMatchesNothing() {
        Document view = new Document("_id", "revenue").append("_part", "acme");

        assertThat(bson(ViewFilter.of(view))).isEqualTo(BsonDocument.parse(NOTHING));
    }

    @Test
    void aStatusWithoutAGenerationOrWithAMistypedOneMatchesNothing() {
        Document erroredBeforeFirstRun = new Document("_part", "acme")
            .append("_materializerStatus", new Document("state", "errored").append("lastError", "boom"));
        Document mistyped = new Document("_part", "acme").append("_materializerStatus", new Document("generation", "12"));
        Document zero = new Document("_part", "acme").append("_materializerStatus", new Document("generation", 0L));

        assertThat(bson(ViewFilter.of(erroredBeforeFirstRun))).isEqualTo(BsonDocument.parse(NOTHING));
        assertThat(bson(ViewFilter.of(mistyped))).isEqualTo(BsonDocument.parse(NOTHING));
        assertThat(bson(ViewFilter.of(zero))).isEqualTo(BsonDocument.parse(NOTHING));
    }

    @Test
    void customFieldNamesAreUsedForThePartitionAndTheStatus() {
        Document view = new Document("_id", "revenue").append("tenant", "acme")
            .append("_part", "ignored")
            .append("state", new Document("generation", 4L))
            .append("_materializerStatus", new Document("generation", 9L));

        assertThat(bson(ViewFilter.of(view, "tenant", "state"))).isEqualTo(BsonDocument.parse(
                "{tenant: 'acme', _viewTo: {$gt: {$numberLong: '4'}}, _viewFrom: {$lte: {$numberLong: '4'}}}"));
    }

    @Test
    void theFilterOfAPartitionAndGenerationNeedsNoViewDocument() {
        assertThat(ViewFilter.of("tenant", "acme", Generation.of(4))).isEqualTo(BsonDocument.parse(
                "{tenant: 'acme', _viewTo: {$gt: {$numberLong: '4'}}, _viewFrom: {$lte: {$numberLong: '4'}}}"));
        assertThat(ViewFilter.of("tenant", "acme", Generation.legacy(LEGACY)))
            .isEqualTo(BsonDocument.parse("{tenant: 'acme', _viewGen: {$oid: '65e1a0000000000000000002'}}"));
        assertThat(ViewFilter.of("tenant", "acme", null))
            .isEqualTo(BsonDocument.parse("{tenant: 'acme', _viewTo: {$in: []}}"));
    }

    @Test
    void aViewDocumentWithoutAPartitionIsRefusedRatherThanMatchingRowsWithoutOne() {
        Document view = new Document("_id", "revenue").append("_materializerStatus", new Document("generation", 3L));

        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
            .isThrownBy(() -> ViewFilter.of(view))
            .withMessageContaining("_part");
    }

    private static BsonDocument bson(Bson filter) {
        return filter.toBsonDocument();
    }
}
