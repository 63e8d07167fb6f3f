package dev.materializer.core.write;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * Names the current generation of a view in its status, as a compare-and-set on the view document:
 * only from the generation the pass started from (or none), and — for a pass in groups — only while
 * that pass holds a live lease. The time of the flip is the server's ({@code $currentDate}).
 *
 * <p>Immutable and thread-safe.
 */
final class GenerationFlip {

    private final ViewDocuments views;

    GenerationFlip(ViewDocuments views) {
        this.views = views;
    }

    /**
     * The flip of a pass in groups: sets the generation, the previous generation with the server's
     * time, and ends the lease.
     * @return false when the pass lost its lease, or another pass changed the generation
     */
    boolean flip(ViewDefinition view, @Nullable ObjectId expected, ObjectId generation, String owner) {
        BsonDocument filter = expecting(view, expected)
            .append(views.status("lease.owner"), new BsonString(owner))
            .append("$expr", views.leaseIsLive());
        BsonValue previous = expected == null ? BsonNull.VALUE : new BsonObjectId(expected);
        BsonDocument update = new BsonDocument("$set",
                new BsonDocument(views.status("generation"), new BsonObjectId(generation))
                    .append(views.status("previous.generation"), previous))
            .append("$currentDate", new BsonDocument(views.status("previous.flippedAt"), BsonBoolean.TRUE))
            .append("$unset", new BsonDocument(views.status("lease"), new BsonString("")));
        return views.collection().updateOne(filter, update).getMatchedCount() == 1;
    }

    /**
     * Names the first generation of a view inside a transaction, when no generation is named yet.
     * @return false when another pass named one first
     */
    boolean nameFirst(ClientSession session, MongoCollection<BsonDocument> viewsInSession, ViewDefinition view,
            ObjectId generation) {
        BsonDocument update = new BsonDocument("$set",
                new BsonDocument(views.status("generation"), new BsonObjectId(generation)));
        return viewsInSession.updateOne(session, expecting(view, null), update).getMatchedCount() == 1;
    }

    private BsonDocument expecting(ViewDefinition view, @Nullable ObjectId expected) {
        BsonValue generation = expected == null ? new BsonDocument("$exists", BsonBoolean.FALSE)
                : new BsonObjectId(expected);
        return views.filter(view).append(views.status("generation"), generation);
    }
}
