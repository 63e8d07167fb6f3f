package dev.materializer.core.write;

import java.time.Instant;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The views collection as the writers see it: the filter of one view document and the paths of its
 * status field. Also where the server's time is read — from the view document itself, with
 * {@code $$NOW} in an aggregation, which MongoDB (4.2 and later) and the in-process test server
 * both answer, and which needs no write.
 *
 * <p>Immutable and thread-safe.
 */
final class ViewDocuments {

    private final MongoCollection<BsonDocument> views;

    private final String partitionField;

    private final String statusField;

    ViewDocuments(MongoDatabase database, WriteSettings options) {
        this.views = database.getCollection(options.viewsCollection(), BsonDocument.class);
        this.partitionField = options.partitionField();
        this.statusField = options.statusField();
    }

    MongoCollection<BsonDocument> collection() {
        return views;
    }

    String partitionField() {
        return partitionField;
    }

    String statusField() {
        return statusField;
    }

    /** The path of a field inside the status field, e.g. {@code _materializerStatus.lease.until}. */
    String status(String path) {
        return statusField + "." + path;
    }

    /** The filter of the view's document: its {@code _id} and its partition. */
    BsonDocument filter(ViewDefinition view) {
        return filter(view.id(), view.partition());
    }

    /** The filter of a view document by {@code _id}, and by partition when known. */
    BsonDocument filter(BsonValue id, @Nullable String partition) {
        BsonDocument filter = new BsonDocument("_id", id);
        if (partition != null) {
            filter.append(partitionField, new BsonString(partition));
        }
        return filter;
    }

    /** A filter term true while the lease in the status ends after the server's now. */
    BsonDocument leaseIsLive() {
        return new BsonDocument("$gt", new BsonArray(
                List.of(new BsonString("$" + status("lease.until")), new BsonString("$$NOW"))));
    }

    /**
     * The server's time, read with the view's document, or null when the document is gone.
     */
    @Nullable
    Instant serverNow(ViewDefinition view) {
        BsonDocument row = views.aggregate(List.of(new BsonDocument("$match", filter(view)),
                new BsonDocument("$limit", new BsonInt32(1)),
                new BsonDocument("$project", new BsonDocument("_id", new BsonInt32(0))
                    .append("now", new BsonString("$$NOW")))))
            .first();
        return row == null || !row.isDateTime("now") ? null
                : Instant.ofEpochMilli(row.getDateTime("now").getValue());
    }
}
