package dev.materializer.core.write;

import java.time.Instant;
import java.util.List;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.UpdateOneModel;
import dev.materializer.core.Generation;
import dev.materializer.core.GenerationPlace;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The fence between passes: every pass that writes a view's rows, or concludes they are right,
 * ends with a compare-and-set on the view document that needs the generation and the write
 * version the pass started from, and moves the version by one. So whatever two passes of any
 * instances do at the same time, the one that started from an older state can never make its
 * result current over the other's: its compare-and-set finds the version moved, and it gives way
 * (a later pass follows). A pass in groups also needs its live lease. Times are the server's
 * ({@code $currentDate}). A pass that ends ok sends its status ({@link PassStatus}) in the same
 * compare-and-set, so the state lands exactly when the result does.
 *
 * <p>Immutable and thread-safe.
 */
final class GenerationFlip {

    private static final BsonDocument ONE_MORE = new BsonDocument(ViewStatus.VERSION, new BsonInt64(1));

    private final ViewDocuments views;

    private final ReadableGenerations readable;

    GenerationFlip(ViewDocuments views, ReadableGenerations readable) {
        this.views = views;
        this.readable = readable;
    }

    /**
     * The flip of a pass in groups: sets the generation, the previous generation with the server's
     * time (and keeps the ones before it that readers may still hold), ends the lease and moves the
     * version.
     * @param start the status the pass started from: its generation and version are expected
     * @param serverTimeBefore a server time read before the flip (when the pass started)
     * @param generation the generation it wrote (its attempt number)
     * @return false when the pass lost its lease, or another pass wrote the view since it started
     */
    boolean flip(ViewDefinition view, ViewStatus start, Instant serverTimeBefore, long generation, String owner) {
        return flip(view, start, serverTimeBefore, generation, owner, null);
    }

    /**
     * The flip of a pass in groups, as above, with the ok state of the pass when given a note.
     * @param note what the status says once the pass ends ok, or null
     */
    boolean flip(ViewDefinition view, ViewStatus start, Instant serverTimeBefore, long generation, String owner,
            @Nullable PassStatus note) {
        return send(null, views.collection(), flipModel(view, start, serverTimeBefore, generation, owner, note),
                note);
    }

    /**
     * Sends one compare-and-set made by a model method (the note's state is in it already), and tells
     * the note whether it matched. An update, not a find-and-modify: every server tells it on the
     * views stream (the in-process test server tells no find-and-modify), which is how every
     * instance, this one included, learns the new status.
     */
    private static boolean send(@Nullable ClientSession session, MongoCollection<BsonDocument> collection,
            UpdateOneModel<BsonDocument> write, @Nullable PassStatus note) {
        BsonDocument filter = (BsonDocument) write.getFilter();
        BsonDocument update = (BsonDocument) write.getUpdate();
        boolean matched = (session == null ? collection.updateOne(filter, update)
                : collection.updateOne(session, filter, update)).getMatchedCount() == 1;
        if (note != null) {
            note.landed(matched);
        }
        return matched;
    }

    /**
     * The flip of a pass in groups as one write of a bulk (a batched pass flips its views in one
     * command), with the same filter and update as {@link #flip}; the caller tells the note whether
     * it landed.
     */
    UpdateOneModel<BsonDocument> flipModel(ViewDefinition view, ViewStatus start, Instant serverTimeBefore,
            long generation, String owner, @Nullable PassStatus note) {
        BsonDocument filter = expecting(view, start.generation(), start.version())
            .append(views.status("lease.owner"), new BsonString(owner))
            .append("$expr", views.leaseIsLive());
        BsonDocument update = flipTo(view, start, serverTimeBefore, generation);
        unset(update, views.status("lease"));
        if (note != null) {
            note.addTo(update, views, view);
        }
        return new UpdateOneModel<>(filter, update);
    }

    /**
     * The flip made first in a transaction ({@link #flipInTransaction}) as one write of a bulk.
     */
    UpdateOneModel<BsonDocument> flipInTransactionModel(ViewDefinition view, ViewStatus start,
            Instant serverTimeBefore, @Nullable PassStatus note) {
        long generation = start.attempts() + 1;
        BsonDocument filter = expecting(view, start.generation(), start.version())
            .append(views.status(ViewStatus.ATTEMPTS), atCount(start.attempts()))
            .append("$expr", new BsonDocument("$not", new BsonArray(List.of(views.leaseIsLive()))));
        BsonDocument update = flipTo(view, start, serverTimeBefore, generation);
        update.getDocument("$set").append(views.status(ViewStatus.ATTEMPTS), new BsonInt64(generation));
        if (note != null) {
            note.addTo(update, views, view);
        }
        return new UpdateOneModel<>(filter, update);
    }

    /** The confirmation of {@link #confirm} as one write of a bulk. */
    UpdateOneModel<BsonDocument> confirmModel(ViewDefinition view, @Nullable Generation expected, long version,
            @Nullable PassStatus note) {
        BsonDocument update = new BsonDocument("$inc", inc())
            .append("$set", new BsonDocument(views.status(GenerationPlace.FIELD), placeOf(view)));
        if (note != null) {
            note.addTo(update, views, view);
        }
        return new UpdateOneModel<>(expecting(view, expected, version), update);
    }

    /**
     * Confirms that the rows are right as they stand: a pass that found nothing to write moves the
     * version too, so a pass that started before it and would write an older result gives way. It
     * records the place of the generation too (a status of an engine before places had none).
     * @return false when another pass wrote the view since this one started
     */
    boolean confirm(ViewDefinition view, @Nullable Generation expected, long version) {
        return confirm(view, expected, version, null);
    }

    /**
     * Confirms as above, with the ok state of the pass when given a note.
     * @param note what the status says once the pass ends ok, or null
     */
    boolean confirm(ViewDefinition view, @Nullable Generation expected, long version, @Nullable PassStatus note) {
        return send(null, views.collection(), confirmModel(view, expected, version, note), note);
    }

    /** Where the pass of a view writes: what a flip or a confirmation records as the place of its generation. */
    private static BsonDocument placeOf(ViewDefinition view) {
        return new GenerationPlace(view.targetCollection(), view.partition()).toBson();
    }

    /**
     * The flip of a pass that writes in one transaction, made first in it: it needs the generation,
     * the version and the count of attempts the pass started from and no live lease, counts the
     * attempt, and flips to it. Inside the transaction a concurrent writer of the view document is a
     * write conflict, so two passes cannot both commit.
     * @param start the status the pass started from: its generation, version and count of attempts are
     *     expected; it writes generation {@code attempts + 1}
     * @param serverTimeBefore a server time read before the flip (when the pass started)
     * @return false when another pass wrote or holds the view
     */
    boolean flipInTransaction(ClientSession session, MongoCollection<BsonDocument> viewsInSession,
            ViewDefinition view, ViewStatus start, Instant serverTimeBefore, @Nullable PassStatus note) {
        // The writer forgets the note's status again when the transaction does not commit
        return send(session, viewsInSession, flipInTransactionModel(view, start, serverTimeBefore, note), note);
    }

    /**
     * Names the new generation, makes the one the pass started from {@code previous} (at the server's
     * time of the flip), and keeps in {@code earlier} the generations before it that readers may
     * still hold. The status the pass started from is the one replaced (the filter expects its write
     * version), so what it carries over is exactly what stood before the flip. Records where the new
     * generation's rows are (its {@link GenerationPlace}).
     */
    private BsonDocument flipTo(ViewDefinition view, ViewStatus start, Instant serverTimeBefore, long generation) {
        Generation expected = start.generation();
        BsonValue previous = expected == null ? BsonNull.VALUE : expected.toBson();
        List<ViewStatus.Previous> earlier = readable.carriedOver(start, serverTimeBefore);
        BsonDocument set = new BsonDocument(views.status(ViewStatus.GENERATION_KEY), new BsonInt64(generation))
            .append(views.status(GenerationPlace.FIELD), placeOf(view))
            .append(views.status("previous.generation"), previous);
        BsonDocument update = new BsonDocument("$set", set)
            .append("$currentDate", new BsonDocument(views.status("previous.flippedAt"), BsonBoolean.TRUE))
            .append("$inc", inc());
        if (earlier.isEmpty()) {
            unset(update, views.status(ViewStatus.EARLIER));
        }
        else {
            set.append(views.status(ViewStatus.EARLIER), ViewStatus.earlierToBson(earlier));
        }
        return update;
    }

    /** Adds a field to the update's {@code $unset}; an empty {@code $unset} is an error on older servers. */
    private static void unset(BsonDocument update, String path) {
        BsonValue unset = update.get("$unset");
        if (unset == null) {
            update.append("$unset", new BsonDocument(path, new BsonString("")));
        }
        else {
            unset.asDocument().append(path, new BsonString(""));
        }
    }

    private BsonDocument inc() {
        return new BsonDocument(views.status(ViewStatus.VERSION), ONE_MORE.get(ViewStatus.VERSION));
    }

    /** The view document at the generation and write version a pass started from. */
    BsonDocument expecting(ViewDefinition view, @Nullable Generation expected, long version) {
        BsonValue generation = expected == null ? new BsonDocument("$exists", BsonBoolean.FALSE) : expected.toBson();
        return views.filter(view).append(views.status(ViewStatus.GENERATION_KEY), generation)
            .append(views.status(ViewStatus.VERSION), atCount(version));
    }

    /** A count as stored: 0 is also a status written before the count existed, without the field. */
    static BsonValue atCount(long count) {
        return count == 0 ? new BsonDocument("$in", new BsonArray(List.of(BsonNull.VALUE, new BsonInt64(0))))
                : new BsonInt64(count);
    }
}
