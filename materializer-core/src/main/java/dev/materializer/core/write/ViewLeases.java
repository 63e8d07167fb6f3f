package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.ObjectId;

/**
 * The lease a pass in groups holds on its view document, in server time. Taking it is a
 * compare-and-set on "no live lease"; renewing it needs the same owner and a lease still live; so a
 * pass that stalled past its lease cannot take the view back from the pass that followed it.
 *
 * <p>The end of the lease is the server's time read just before (with {@code $$NOW}) plus
 * {@code passLease}, set by a classic update: no pipeline-style update, which some servers lack.
 * The time between the read and the write only shortens the lease.
 *
 * <p>Immutable and thread-safe.
 */
final class ViewLeases {

    private final ViewDocuments views;

    private final Duration passLease;

    ViewLeases(ViewDocuments views, Duration passLease) {
        this.views = views;
        this.passLease = passLease;
    }

    /**
     * Takes the lease for a pass, when no live lease holds the view.
     * @return false when a live lease holds it, or the view document is gone
     */
    boolean take(ViewDefinition view, String owner, ObjectId generation) {
        Instant now = views.serverNow(view);
        if (now == null) {
            return false;
        }
        BsonDocument filter = views.filter(view)
            .append("$expr", new BsonDocument("$not", new BsonArray(List.of(views.leaseIsLive()))));
        BsonDocument lease = new BsonDocument("owner", new BsonString(owner))
            .append("generation", new BsonObjectId(generation))
            .append("until", until(now));
        return views.collection()
            .updateOne(filter, new BsonDocument("$set", new BsonDocument(views.status("lease"), lease)))
            .getMatchedCount() == 1;
    }

    /**
     * Extends the lease of a pass while it is live and still its own.
     * @return false when the pass lost it
     */
    boolean renew(ViewDefinition view, String owner) {
        Instant now = views.serverNow(view);
        if (now == null) {
            return false;
        }
        BsonDocument filter = views.filter(view)
            .append(views.status("lease.owner"), new BsonString(owner))
            .append("$expr", views.leaseIsLive());
        return views.collection()
            .updateOne(filter, new BsonDocument("$set", new BsonDocument(views.status("lease.until"), until(now))))
            .getMatchedCount() == 1;
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
