package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOneModel;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The lease a pass that writes in groups holds on its view document, in server time. Taking it is a
 * compare-and-set on "no live lease" and on the generation and write version the pass started from,
 * and it takes the next attempt number (the generation the pass writes); renewing it needs the same
 * owner and a lease still live; so a pass that stalled past its lease cannot take the view back
 * from the pass that followed it.
 *
 * <p>The end of the lease is the server's time plus {@code passLease}, set by a classic update: no
 * pipeline-style update, which some servers lack. The server's time is the one the pass read with its
 * starting status, carried forward by the host's monotonic clock ({@link ServerTime}: never ahead of
 * the server's), so neither the take nor a renewal costs a read of it; the time between the read and
 * the write only shortens the lease.
 *
 * <p>Immutable and thread-safe.
 */
final class ViewLeases {

    private final ViewDocuments views;

    private final Duration passLease;

    private final GenerationFlip flip;

    /**
     * Creates the leases of passes in groups.
     * @param flip the fence whose filter of "the view as the pass found it" the take shares
     */
    ViewLeases(ViewDocuments views, Duration passLease, GenerationFlip flip) {
        this.views = views;
        this.passLease = passLease;
        this.flip = flip;
    }

    /**
     * Takes the lease for a pass, when no live lease holds the view and nobody wrote it since the
     * pass started, and counts the attempt.
     * @param expected the generation the pass started from
     * @param version the write version the pass started from
     * @param serverTime the server's time, as the pass read it
     * @return the attempt's number, the generation it writes; 0 when a live lease holds the view,
     *     another pass wrote it, or the document is gone
     */
    long take(ViewDefinition view, String owner, @Nullable Generation expected, long version, ServerTime serverTime) {
        Instant now = serverTime.now();
        BsonDocument filter = flip.expecting(view, expected, version)
            .append("$expr", new BsonDocument("$not", new BsonArray(List.of(views.leaseIsLive()))));
        BsonDocument lease = new BsonDocument("owner", new BsonString(owner)).append("until", until(now));
        BsonDocument taken = views.collection().findOneAndUpdate(filter,
                new BsonDocument("$set", new BsonDocument(views.status("lease"), lease))
                    .append("$inc", new BsonDocument(views.status(ViewStatus.ATTEMPTS), new BsonInt64(1))),
                new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER)
                    .projection(Projections.include(views.status(ViewStatus.ATTEMPTS))));
        if (taken == null) {
            return 0;
        }
        BsonValue status = taken.get(views.statusField());
        return ViewStatus.fromBson(status != null && status.isDocument() ? status.asDocument() : null).attempts();
    }

    /**
     * The take of {@link #take} as one write of a bulk, for a batched pass: it also expects the count
     * of attempts the pass started from, so the attempt's number is that count plus one without a
     * read back (a take that finds the count moved gives way, as one that finds a live lease).
     */
    UpdateOneModel<BsonDocument> takeModel(ViewDefinition view, String owner, ViewStatus start,
            ServerTime serverTime) {
        BsonDocument filter = flip.expecting(view, start.generation(), start.version())
            .append(views.status(ViewStatus.ATTEMPTS), GenerationFlip.atCount(start.attempts()))
            .append("$expr", new BsonDocument("$not", new BsonArray(List.of(views.leaseIsLive()))));
        BsonDocument lease = new BsonDocument("owner", new BsonString(owner)).append("until", until(serverTime.now()));
        return new UpdateOneModel<>(filter, new BsonDocument("$set", new BsonDocument(views.status("lease"), lease))
            .append("$inc", new BsonDocument(views.status(ViewStatus.ATTEMPTS), new BsonInt64(1))));
    }

    /**
     * Extends the lease of a pass while it is live and still its own.
     * @return false when the pass lost it
     */
    boolean renew(ViewDefinition view, String owner, ServerTime serverTime) {
        return renew(null, views.collection(), view, owner, serverTime);
    }

    /**
     * Extends the lease of a pass while it is live and still its own, inside a transaction when given
     * one: the group written in the same transaction commits only with the lease, and a take of the
     * view by another pass meanwhile is a write conflict of one of them.
     * @param session the session of the transaction, or null for a write of its own
     * @param viewsCollection the views collection, of the session's client when given a session
     * @param serverTime the server's time, as the pass read it
     * @return false when the pass lost it
     */
    boolean renew(@Nullable ClientSession session, MongoCollection<BsonDocument> viewsCollection, ViewDefinition view,
            String owner, ServerTime serverTime) {
        Instant now = serverTime.now();
        BsonDocument filter = views.filter(view)
            .append(views.status("lease.owner"), new BsonString(owner))
            .append("$expr", views.leaseIsLive());
        BsonDocument update = new BsonDocument("$set", new BsonDocument(views.status("lease.until"), until(now)));
        return (session == null ? viewsCollection.updateOne(filter, update)
                : viewsCollection.updateOne(session, filter, update)).getMatchedCount() == 1;
    }

    /** Ends the lease of a pass, when it is still its own. */
    void release(ViewDefinition view, String owner) {
        views.collection()
            .updateOne(views.filter(view).append(views.status("lease.owner"), new BsonString(owner)),
                    new BsonDocument("$unset", new BsonDocument(views.status("lease"), new BsonString(""))));
    }

    private BsonDateTime until(Instant serverNow) {
        return new BsonDateTime(serverNow.plus(passLease).toEpochMilli());
    }
}
