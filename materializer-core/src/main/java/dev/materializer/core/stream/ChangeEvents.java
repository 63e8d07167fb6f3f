package dev.materializer.core.stream;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Reads a raw change event (as the server sent it) into a {@link SourceChange}. Reading the raw
 * document rather than the driver's decoded event keeps the engine working on servers whose
 * events lack fields (no {@code ns}, no {@code updateDescription}): what is missing reads as
 * unknown, never as "nothing". Events projected by {@link WatchPipeline} read the same way.
 */
final class ChangeEvents {

    private ChangeEvents() {
    }

    static SourceChange toSourceChange(BsonDocument event) {
        return toSourceChange(event, null);
    }

    /**
     * The change an event tells.
     * @param imagePaths the document paths a projected stream keeps in its images; null for whole
     *     images
     */
    static SourceChange toSourceChange(BsonDocument event, @Nullable Set<String> imagePaths) {
        Operation operation = operation(event.get("operationType"));
        BsonDocument documentKey = document(event.get("documentKey"));
        BsonValue documentId = documentKey == null ? null : documentKey.get("_id");
        return new SourceChange(operation, document(event.get("fullDocument")),
                document(event.get("fullDocumentBeforeChange")), documentId,
                operation == Operation.UPDATE ? updatedFields(document(event.get("updateDescription")), event) : null,
                event.get("clusterTime") instanceof BsonTimestamp time ? time : null, wallTime(event), imagePaths);
    }

    private static Operation operation(@Nullable BsonValue value) {
        if (value == null || !value.isString()) {
            return Operation.OTHER;
        }
        return switch (value.asString().getValue()) {
            case "insert" -> Operation.INSERT;
            case "update" -> Operation.UPDATE;
            case "replace" -> Operation.REPLACE;
            case "delete" -> Operation.DELETE;
            case "drop" -> Operation.DROP;
            case "rename" -> Operation.RENAME;
            case "dropDatabase" -> Operation.DROP_DATABASE;
            case "invalidate" -> Operation.INVALIDATE;
            default -> Operation.OTHER;
        };
    }

    private static @Nullable UpdatedFields updatedFields(@Nullable BsonDocument description, BsonDocument event) {
        if (description == null) {
            return null;
        }
        BsonDocument updated = document(description.get("updatedFields"));
        // A projected event carries the names of the updated fields only (WatchPipeline).
        List<String> updatedKeys = updated != null ? List.copyOf(updated.keySet())
                : strings(event.get(WatchPipeline.UPDATED_FIELD_NAMES));
        List<String> removed = strings(description.get("removedFields"));
        List<String> truncated = new ArrayList<>();
        if (description.get("truncatedArrays") instanceof BsonArray arrays) {
            for (BsonValue entry : arrays) {
                if (entry.isDocument() && entry.asDocument().get("field") instanceof org.bson.BsonString field) {
                    truncated.add(field.getValue());
                }
            }
        }
        return new UpdatedFields(updatedKeys, removed, truncated);
    }

    private static List<String> strings(@Nullable BsonValue value) {
        if (!(value instanceof BsonArray array)) {
            return List.of();
        }
        List<String> strings = new ArrayList<>(array.size());
        for (BsonValue entry : array) {
            if (entry.isString()) {
                strings.add(entry.asString().getValue());
            }
        }
        return strings;
    }

    private static @Nullable Instant wallTime(BsonDocument event) {
        BsonValue wall = event.get("wallTime");
        if (wall != null && wall.isDateTime()) {
            return Instant.ofEpochMilli(wall.asDateTime().getValue());
        }
        if (event.get("clusterTime") instanceof BsonTimestamp time && time.getTime() > 0) {
            return Instant.ofEpochSecond(time.getTime());
        }
        return null;
    }

    private static @Nullable BsonDocument document(@Nullable BsonValue value) {
        return value != null && value.isDocument() ? value.asDocument() : null;
    }
}
