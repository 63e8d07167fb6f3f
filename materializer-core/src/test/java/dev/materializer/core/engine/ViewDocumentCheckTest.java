package dev.materializer.core.engine;

import dev.materializer.core.InvalidViewDocumentException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The public check of a view document refuses what the engine's parser and scope guard refuse. */
class ViewDocumentCheckTest {

    private final ViewDocumentCheck check = new ViewDocumentCheck("_part", "_aggregations");

    private static BsonDocument view(String pipeline) {
        return BsonDocument.parse("{_id: 'revenue', _part: 'acme', collections: ['orders'], targetCollection: 'revenue',"
                + " pipeline: " + pipeline + "}");
    }

    @Test
    void aViewTheEngineRunsPasses() {
        assertThatCode(() -> check.check(view("[{$group: {_id: '$product', total: {$sum: '$amount'}}}]")))
            .doesNotThrowAnyException();
    }

    @Test
    void aDocumentTheParserRefusesIsRefusedWithItsReason() {
        BsonDocument noTarget = view("[]");
        noTarget.remove("targetCollection");
        assertThatThrownBy(() -> check.check(noTarget)).isInstanceOf(InvalidViewDocumentException.class)
            .hasMessageContaining("targetCollection");
    }

    @Test
    void aPipelineThatWritesOrReadsOutsideItsSourcesIsRefusedByTheScopeGuard() {
        assertThatThrownBy(() -> check.check(view("[{$out: 'elsewhere'}]")))
            .isInstanceOf(InvalidViewDocumentException.class).hasMessageContaining("$out");
        assertThatThrownBy(() -> check.check(view("[{$lookup: {from: 'customers', localField: 'c', foreignField: '_id',"
                + " as: 'customer'}}]"))).isInstanceOf(InvalidViewDocumentException.class)
            .hasMessageContaining("customers");
    }
}
