package dev.materializer.core.write;

import java.util.List;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * What a key-scoped pass recomputes: the view's pipeline restricted to the affected keys, and the
 * ids of the result rows those keys give. The pass replaces exactly those rows: it adds or changes
 * the ones the restricted result has and closes the stored ones it no longer has; every other row
 * stays as it is. A restricted result with a row outside these ids proves the restriction wrong: the
 * pass then writes nothing and the runner runs the whole view instead.
 *
 * @param pipeline the restricted stages, before the scope guard
 * @param rowIds the ids of the rows the restricted result may have
 * @param description what the scope is, for the pass report (e.g. "2 keys of customer")
 */
public record KeyScope(List<BsonDocument> pipeline, List<BsonValue> rowIds, String description) {

    /** Copies the lists so the record stays immutable. */
    public KeyScope {
        pipeline = List.copyOf(pipeline);
        rowIds = List.copyOf(rowIds);
    }
}
