package dev.materializer.core.stream;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.Operation;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ChangeEventsTest {

    @Test
    void anUpdateEventCarriesItsUpdatedRemovedAndTruncatedPaths() {
        SourceChange change = ChangeEvents.toSourceChange(BsonDocument.parse("""
                {"_id": {"_data": "1"}, "operationType": "update", "documentKey": {"_id": "o1"},
                 "updateDescription": {"updatedFields": {"a.b": 1, "c": 2}, "removedFields": ["d"],
                                       "truncatedArrays": [{"field": "lines", "newSize": 1}]},
                 "fullDocument": {"_id": "o1", "_part": "acme"},
                 "wallTime": {"$date": "2026-01-01T00:00:00Z"}}
                """));

        assertThat(change.operation()).isEqualTo(Operation.UPDATE);
        assertThat(change.update()).isNotNull();
        assertThat(change.update().updated()).containsExactly("a.b", "c");
        assertThat(change.update().removed()).containsExactly("d");
        assertThat(change.update().truncatedArrays()).containsExactly("lines");
        assertThat(change.documentId().asString().getValue()).isEqualTo("o1");
        assertThat(change.fullDocument().getString("_part").getValue()).isEqualTo("acme");
        assertThat(change.wallTime()).hasToString("2026-01-01T00:00:00Z");
    }

    @Test
    void anUpdateWithoutADescriptionReadsAsUnknownNotAsNothing() {
        SourceChange change = ChangeEvents.toSourceChange(BsonDocument.parse(
                "{\"operationType\": \"update\", \"documentKey\": {\"_id\": 1}}"));

        assertThat(change.operation()).isEqualTo(Operation.UPDATE);
        assertThat(change.update()).isNull();
    }

    @Test
    void eventsThatEndAStreamAndUnknownOnesAreNamed() {
        assertThat(ChangeEvents.toSourceChange(BsonDocument.parse("{\"operationType\": \"invalidate\"}")).operation())
            .isEqualTo(Operation.INVALIDATE);
        assertThat(ChangeEvents.toSourceChange(BsonDocument.parse("{\"operationType\": \"dropDatabase\"}")).operation())
            .isEqualTo(Operation.DROP_DATABASE);
        assertThat(ChangeEvents.toSourceChange(BsonDocument.parse("{\"operationType\": \"shardCollection\"}")).operation())
            .isEqualTo(Operation.OTHER);
        assertThat(ChangeEvents.toSourceChange(new BsonDocument()).operation()).isEqualTo(Operation.OTHER);
    }
}
