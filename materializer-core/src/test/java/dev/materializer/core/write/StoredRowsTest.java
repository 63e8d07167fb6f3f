package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.Generation;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The versions a key-scoped pass's status read brings are of every generation: the pass keeps those
 * a reader of its starting generation sees, whole, in the order read.
 */
class StoredRowsTest {

    @Test
    void ofTheVersionsReadWithTheStatusAPassKeepsThoseOfItsGenerationWhole() {
        List<BsonDocument> versions = List.of(version("a-current", "a", 1, ViewFilter.OPEN),
                version("b-superseded", "b", 1, 3), version("b-current", "b", 3, ViewFilter.OPEN),
                version("c-closed-by-an-attempt-that-did-not-flip", "c", 2, 5),
                version("d-left-by-an-attempt-that-did-not-flip", "d", 4, ViewFilter.OPEN));

        List<StoredRows.Stored> kept = new ArrayList<>();
        StoredRows stored = StoredRows.ofGeneration(versions, Generation.of(3));
        for (StoredRows.Stored next = stored.next(); next != null; next = stored.next()) {
            kept.add(next);
        }

        assertThat(kept).extracting(version -> version.storedId().asString().getValue())
            .containsExactly("a-current", "b-current", "c-closed-by-an-attempt-that-did-not-flip");
        assertThat(kept).allMatch(StoredRows.Stored::whole);
        assertThat(kept.get(0).document()).isEqualTo(versions.get(0));
    }

    @Test
    void aLegacyGenerationKeepsNone() {
        StoredRows stored = StoredRows.ofGeneration(List.of(version("a", "a", 1, ViewFilter.OPEN)),
                Generation.legacy(new ObjectId()));

        assertThat(stored.next()).isNull();
    }

    private static BsonDocument version(String storedId, String rowId, long from, long to) {
        return new BsonDocument("_id", new BsonString(storedId)).append("total", new BsonInt64(1))
            .append("_part", new BsonString("acme")).append(ViewFilter.ROW_FIELD, new BsonString(rowId))
            .append(ViewFilter.FROM_FIELD, new BsonInt64(from)).append(ViewFilter.TO_FIELD, new BsonInt64(to))
            .append(ViewFilter.HASH_FIELD, new BsonString("h-" + storedId));
    }
}
