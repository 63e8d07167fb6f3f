package dev.materializer.core.routing;

import java.util.List;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;

/** Builds change events for the routing tests. */
final class Changes {

    static final String PARTITION_FIELD = "_part";

    private Changes() {
    }

    static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }

    static BsonDocument inPartition(String partition) {
        return new BsonDocument("_id", new BsonString("x")).append(PARTITION_FIELD, new BsonString(partition));
    }

    static SourceChange insert(@Nullable BsonDocument document) {
        return new SourceChange(Operation.INSERT, document, null, id("x"), null, null, null);
    }

    static SourceChange update(@Nullable BsonDocument after, @Nullable BsonDocument before,
            @Nullable BsonValue id, @Nullable UpdatedFields fields) {
        return new SourceChange(Operation.UPDATE, after, before, id, fields, null, null);
    }

    static SourceChange replace(@Nullable BsonDocument after, @Nullable BsonDocument before, @Nullable BsonValue id) {
        return new SourceChange(Operation.REPLACE, after, before, id, null, null, null);
    }

    static SourceChange delete(@Nullable BsonDocument before, @Nullable BsonValue id) {
        return new SourceChange(Operation.DELETE, null, before, id, null, null, null);
    }

    static SourceChange of(Operation operation) {
        return new SourceChange(operation, null, null, null, null, null, null);
    }

    static UpdatedFields updated(String... keys) {
        return new UpdatedFields(List.of(keys), List.of(), List.of());
    }

    static UpdatedFields removed(String... keys) {
        return new UpdatedFields(List.of(), List.of(keys), List.of());
    }

    static UpdatedFields truncated(String... keys) {
        return new UpdatedFields(List.of(), List.of(), List.of(keys));
    }

    static BsonString id(String value) {
        return new BsonString(value);
    }

    static BsonString storageId(String storagePartition, String rest) {
        return new BsonString(storagePartition + PartitionRouter.STORAGE_SEPARATOR + rest);
    }
}
