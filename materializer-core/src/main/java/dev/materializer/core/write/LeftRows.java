package dev.materializer.core.write;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the rows a view left behind in a target of its partition when it went (deleted, moved to
 * another partition, given another target): every row version of the partition there, and rows of
 * the format before versions, once no view document of the partition names that target any more.
 * No reader sees them — the guard and {@link dev.materializer.core.ViewFilter} read only the
 * generation of a view that holds the target — but they would take storage for ever. Documents
 * without the engine's fields (a source that is also a target) are never touched.
 *
 * <p>A view document that names the target again (put back, or moved back) keeps them: the view
 * may go on from its generation there, and its first pass in a place removes what is not its own.
 *
 * <p>Immutable and thread-safe.
 */
final class LeftRows {

    private static final Logger log = LoggerFactory.getLogger(LeftRows.class);

    private static final String TARGET_FIELD = "targetCollection";

    private final MongoDatabase database;

    private final ViewDocuments views;

    private final TargetRows rows;

    LeftRows(MongoDatabase database, WriteSettings options, TargetRows rows) {
        this.database = database;
        this.views = new ViewDocuments(database, options);
        this.rows = rows;
    }

    /**
     * Removes the partition's rows from the target unless a view document of the partition names it.
     * @return how many rows it removed; -1 when a view document names the target, so it removed none
     * @throws com.mongodb.MongoException when the deployment fails
     */
    long remove(String partition, String target) {
        BsonDocument named = views.collection()
            .find(new BsonDocument(views.partitionField(), new BsonString(partition))
                .append(TARGET_FIELD, new BsonString(target)))
            .projection(Projections.include("_id"))
            .first();
        if (named != null) {
            log.debug("Target {} of partition {} is named by view {} again: its rows stay", target, partition,
                    named.get("_id"));
            return -1;
        }
        long removed = database.getCollection(target, BsonDocument.class).deleteMany(rows.engineRowsOf(partition))
            .getDeletedCount();
        if (removed > 0) {
            log.info("Target {} of partition {}: removed the {} row version(s) a view that left it had there", target,
                    partition, removed);
        }
        return removed;
    }
}
