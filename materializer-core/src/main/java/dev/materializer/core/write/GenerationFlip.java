package dev.materializer.core.write;

import java.util.List;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * The fence between passes: every pass that writes a view's rows, or concludes they are right,
 * ends with a compare-and-set on the view document that needs the generation and the write
 * version the pass started from, and moves the version by one. So whatever two passes of any
 * instances do at the same time, the one that started from an older state can never make its
 * result current over the other's: its compare-and-set finds the version moved, and it gives way
 * (a later pass follows). A pass in groups also needs its live lease. Times are the server's
 * ({@code $currentDate}).
 *
 * <p>Immutable and thread-safe.
 */
final class GenerationFlip {

    private static final BsonDocument ONE_MORE = new BsonDocument(ViewStatus.VERSION, new BsonInt64(1));

    private final ViewDocuments views;

    GenerationFlip(ViewDocuments views) {
        this.views = views;
    }

    /**
     * The flip of a pass in groups: sets the generation, the previous generation with the server's
     * time, ends the lease and moves the version.
     * @return false when the pass lost its lease, or another pass wrote the view since it started
     */
    boolean flip(ViewDefinition view, @Nullable ObjectId expected, long version, ObjectId generation, String owner) {
        BsonDocument filter = expecting(view, expected, version)
            .append(views.status("lease.owner"), new BsonString(owner))
            .append("$expr", views.leaseIsLive());
        BsonValue previous = expected == null ? BsonNull.VALUE : new BsonObjectId(expected);
        BsonDocument update = new BsonDocument("$set",
                new BsonDocument(views.status("generation"), new BsonObjectId(generation))
                    .append(views.status("previous.generation"), previous))
            .append("$currentDate", new BsonDocument(views.status("previous.flippedAt"), BsonBoolean.TRUE))
            .append("$unset", new BsonDocument(views.status("lease"), new BsonString("")))
            .append("$inc", inc());
        return views.collection().updateOne(filter, update).getMatchedCount() == 1;
    }

    /**
     * Confirms that the rows are right as they stand: a pass that found nothing to write moves the
     * version too, so a pass that started before it and would write an older result gives way.
     * @return false when another pass wrote the view since this one started
     */
    boolean confirm(ViewDefinition view, @Nullable ObjectId expected, long version) {
        return views.collection().updateOne(expecting(view, expected, version), new BsonDocument("$inc", inc()))
            .getMatchedCount() == 1;
    }

    /**
     * The compare-and-set of a transaction that wrote rows: names the first generation when there
     * is none yet, and moves the version. Inside the transaction a concurrent writer of the view
     * document is a write conflict.
     * @return false when another pass wrote the view since this one started
     */
    boolean commitInTransaction(ClientSession session, MongoCollection<BsonDocument> viewsInSession,
            ViewDefinition view, @Nullable ObjectId expected, ObjectId generation, long version) {
        BsonDocument update = new BsonDocument("$inc", inc());
        if (expected == null) {
            update.append("$set", new BsonDocument(views.status("generation"), new BsonObjectId(generation)));
        }
        return viewsInSession.updateOne(session, expecting(view, expected, version), update).getMatchedCount() == 1;
    }

    private BsonDocument inc() {
        return new BsonDocument(views.status(ViewStatus.VERSION), ONE_MORE.get(ViewStatus.VERSION));
    }

    private BsonDocument expecting(ViewDefinition view, @Nullable ObjectId expected, long version) {
        BsonValue generation = expected == null ? new BsonDocument("$exists", BsonBoolean.FALSE)
                : new BsonObjectId(expected);
        // Version 0 is also a status written before versions existed: the field is absent.
        BsonValue atVersion = version == 0
                ? new BsonDocument("$in", new BsonArray(List.of(BsonNull.VALUE, new BsonInt64(0))))
                : new BsonInt64(version);
        return views.filter(view).append(views.status("generation"), generation)
            .append(views.status(ViewStatus.VERSION), atVersion);
    }
}
