package dev.materializer.core.view;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class ViewFilterTest {

    private static final ObjectId CURRENT = new ObjectId("65e1a0000000000000000002");

    private static final ObjectId OLDER = new ObjectId("65e1a0000000000000000001");

    @Test
    void aViewThatRanFiltersItsPartitionAndCurrentGeneration() {
        Document view = new Document("_id", "revenue").append("_part", "acme")
            .append("_materializerStatus", new Document("state", "ok").append("generation", CURRENT));

        assertThat(bson(ViewFilter.of(view)))
            .isEqualTo(BsonDocument.parse("{_part: 'acme', _viewGen: {$oid: '65e1a0000000000000000002'}}"));
    }

    @Test
    void aViewNeverRunMatchesNothing() {
        Document view = new Document("_id", "revenue").append("_part", "acme");

        assertThat(bson(ViewFilter.of(view))).isEqualTo(BsonDocument.parse("{_part: 'acme', _viewGen: {$in: []}}"));
    }

    @Test
    void aStatusWithoutAnObjectIdGenerationMatchesNothing() {
        Document erroredBeforeFirstRun = new Document("_part", "acme")
            .append("_materializerStatus", new Document("state", "errored").append("lastError", "boom"));
        Document mistyped = new Document("_part", "acme")
            .append("_materializerStatus", new Document("generation", CURRENT.toHexString()));

        assertThat(bson(ViewFilter.of(erroredBeforeFirstRun)))
            .isEqualTo(BsonDocument.parse("{_part: 'acme', _viewGen: {$in: []}}"));
        assertThat(bson(ViewFilter.of(mistyped))).isEqualTo(BsonDocument.parse("{_part: 'acme', _viewGen: {$in: []}}"));
    }

    @Test
    void customFieldNamesAreUsedForThePartitionAndTheStatus() {
        Document view = new Document("_id", "revenue").append("tenant", "acme")
            .append("_part", "ignored")
            .append("state", new Document("generation", CURRENT))
            .append("_materializerStatus", new Document("generation", OLDER));

        assertThat(bson(ViewFilter.of(view, "tenant", "state")))
            .isEqualTo(BsonDocument.parse("{tenant: 'acme', _viewGen: {$oid: '65e1a0000000000000000002'}}"));
    }

    @Test
    void theFilterOfAPartitionAndGenerationNeedsNoViewDocument() {
        assertThat(ViewFilter.of("tenant", "acme", CURRENT))
            .isEqualTo(BsonDocument.parse("{tenant: 'acme', _viewGen: {$oid: '65e1a0000000000000000002'}}"));
        assertThat(ViewFilter.of("tenant", "acme", null))
            .isEqualTo(BsonDocument.parse("{tenant: 'acme', _viewGen: {$in: []}}"));
    }

    @Test
    void aViewDocumentWithoutAPartitionIsRefusedRatherThanMatchingRowsWithoutOne() {
        Document view = new Document("_id", "revenue").append("_materializerStatus", new Document("generation", CURRENT));

        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
            .isThrownBy(() -> ViewFilter.of(view))
            .withMessageContaining("_part");
    }

    private static BsonDocument bson(Bson filter) {
        return filter.toBsonDocument();
    }
}
