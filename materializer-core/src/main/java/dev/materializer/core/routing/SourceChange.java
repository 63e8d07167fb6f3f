package dev.materializer.core.routing;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One change event of a source collection, reduced to what routing needs. Built by the change feed
 * from the driver's event.
 *
 * @param operation what happened
 * @param fullDocument the document after the change (insert, replace, and update with
 *     {@code updateLookup}), when known
 * @param fullDocumentBeforeChange the pre-image, on collections with pre-images enabled
 * @param documentId the {@code _id} of the changed document, when known
 * @param update the fields an update touched; null when the event carries no update description
 *     (the update may then touch any field)
 * @param clusterTime the server's operation time, when known
 * @param wallTime the server's wall time of the operation, when known
 * @param imagePaths the document paths the images carry when the stream projected them (a server
 *     that does not split large events): a field outside them is unknown, not missing; null when the
 *     images are whole documents
 */
public record SourceChange(Operation operation, @Nullable BsonDocument fullDocument,
        @Nullable BsonDocument fullDocumentBeforeChange, @Nullable BsonValue documentId,
        @Nullable UpdatedFields update, @Nullable BsonTimestamp clusterTime, @Nullable Instant wallTime,
        @Nullable Set<String> imagePaths) {

    /** Copies the paths so the record stays immutable. */
    public SourceChange {
        imagePaths = imagePaths == null ? null : Set.copyOf(imagePaths);
    }

    /**
     * A change whose images, when present, are whole documents.
     * @param operation what happened
     * @param fullDocument the post-image
     * @param fullDocumentBeforeChange the pre-image
     * @param documentId the {@code _id} of the changed document
     * @param update the fields an update touched
     * @param clusterTime the server's operation time
     * @param wallTime the server's wall time
     */
    public SourceChange(Operation operation, @Nullable BsonDocument fullDocument,
            @Nullable BsonDocument fullDocumentBeforeChange, @Nullable BsonValue documentId,
            @Nullable UpdatedFields update, @Nullable BsonTimestamp clusterTime, @Nullable Instant wallTime) {
        this(operation, fullDocument, fullDocumentBeforeChange, documentId, update, clusterTime, wallTime, null);
    }

    /**
     * Whether the images carry a document path: always with whole images, else when a projected
     * path is the path or one of its parents.
     * @param path a dotted path
     * @return true when a missing field at the path really is missing
     */
    public boolean imagesCarry(String path) {
        if (imagePaths == null) {
            return true;
        }
        for (String kept : imagePaths) {
            if (path.equals(kept) || path.startsWith(kept + ".")) {
                return true;
            }
        }
        return false;
    }

    /** The kinds of change. */
    public enum Operation {
        /** A document was inserted. */
        INSERT,
        /** A document was updated. */
        UPDATE,
        /** A document was replaced. */
        REPLACE,
        /** A document was deleted. */
        DELETE,
        /** The collection was dropped. */
        DROP,
        /** The collection was renamed. */
        RENAME,
        /** The database was dropped. */
        DROP_DATABASE,
        /** The stream was invalidated and ends. */
        INVALIDATE,
        /** Any other event. */
        OTHER
    }

    /**
     * The paths an update touched, as its update description gives them.
     * @param updated the keys of {@code updatedFields} (dotted paths)
     * @param removed the {@code removedFields}
     * @param truncatedArrays the fields of {@code truncatedArrays}
     */
    public record UpdatedFields(List<String> updated, List<String> removed, List<String> truncatedArrays) {

        /** Copies the lists so the record stays immutable. */
        public UpdatedFields {
            updated = List.copyOf(updated);
            removed = List.copyOf(removed);
            truncatedArrays = List.copyOf(truncatedArrays);
        }
    }
}
