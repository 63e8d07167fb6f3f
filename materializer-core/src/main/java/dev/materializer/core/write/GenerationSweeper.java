package dev.materializer.core.write;

import java.time.Instant;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the row versions no reader needs any more: those superseded at or before the oldest
 * generation still readable — the oldest generation a flip superseded less than
 * {@code generationGrace} ago, else the current one (server time; see {@link ReadableGenerations}).
 *
 * <p>Safe without the view's lease, and on a status read at any time before: a version superseded
 * in a generation that flipped is never current again (only versions closed by an attempt that did
 * not flip, above the current generation, are reopened), and an older status only names an older
 * generation, so the sweep removes less. The versions an attempt added and did not flip are not the
 * sweep's: the next attempt, holding the lease, removes them.
 *
 * <p>Immutable and thread-safe.
 */
final class GenerationSweeper {

    private static final Logger log = LoggerFactory.getLogger(GenerationSweeper.class);

    private final MongoDatabase database;

    private final TargetRows rows;

    private final ReadableGenerations readable;

    GenerationSweeper(MongoDatabase database, TargetRows rows, ReadableGenerations readable) {
        this.database = database;
        this.rows = rows;
        this.readable = readable;
    }

    /**
     * Removes the versions of the view's partition that no reader of a readable generation sees.
     * @param status the view's status, as read at {@code serverNow}
     * @param serverNow the server's time of that read
     * @return how many versions it removed
     */
    long sweep(ViewDefinition view, ViewStatus status, Instant serverNow) {
        long oldestReadable = readable.oldestReadable(status, serverNow);
        if (oldestReadable <= 0) {
            return 0;
        }
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        long removed = target.deleteMany(rows.supersededBy(view.partition(), oldestReadable)).getDeletedCount();
        if (removed > 0) {
            log.debug("View {}: removed {} superseded row version(s)", view.key(), removed);
        }
        return removed;
    }
}
