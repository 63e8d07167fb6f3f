package dev.materializer.core.write;

import java.time.Instant;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.conversions.Bson;

/**
 * Puts back the status of a view whose document an application replaced without it (a Spring Data
 * {@code save()} of the whole document): readers read nothing while the document names no
 * generation, so the engine names again the newest status it read of the view, at once, instead of
 * writing the view anew. Every instance reads every view's status on the views stream, so that status
 * is the one readers last saw, whichever instance wrote it — with its {@code previous} and
 * {@code earlier} generations, so their readers keep their grace.
 *
 * <p>What it guarantees: it writes only where the document still has no status (a compare-and-set
 * on the field's absence), so it never overwrites a status written since. The restored
 * {@code attempts} is at least every number a version in the target carries, so no later attempt
 * takes a number already used; the restored write {@code version} is the negative of the time of the
 * restore, a value no pass in flight can have started from, so such a pass gives way rather than
 * land on a status it did not read; a lease is not put back. The generation it names is always whole
 * for its readers: a flip after that status only added versions above it and closed versions at a
 * number above it. When the target holds versions numbered past what that status accounts for, a
 * flip the views stream never showed (the document replaced right after it) may be newer: it says
 * so ({@link Restored#MAY_BE_STALE}) and the caller runs the view, whose next attempt undoes that
 * write and applies the result anew. Only the instance that owns the partition, in its lane, calls it.
 */
public final class LostStatus {

    /** What a restore did. */
    public enum Restored {
        /** The status is back, exactly as last read. */
        RESTORED,
        /** The status is back as last read, but the target holds writes after it: run the view. */
        MAY_BE_STALE,
        /** The document has a status again, or is gone: nothing was written. */
        STATUS_PRESENT
    }

    private final MongoDatabase database;

    private final ViewDocuments views;

    private final String partitionField;

    /**
     * Creates the restore of lost statuses.
     * @param database the database of the views and their targets
     * @param options the writers' settings (views collection, partition and status fields)
     */
    public LostStatus(MongoDatabase database, WriteSettings options) {
        this.database = database;
        this.views = new ViewDocuments(database, options);
        this.partitionField = options.partitionField();
    }

    /**
     * Restores the status of a view as it was last read.
     * @param view the view
     * @param lastSeen the newest status of the view read before its document lost it, as stored; it
     *     names a versioned generation
     * @param at when (host time)
     * @return what it did
     */
    public Restored restore(ViewDefinition view, BsonDocument lastSeen, Instant at) {
        ViewStatus seen = ViewStatus.fromBson(lastSeen);
        Generation generation = seen.generation();
        if (generation == null || generation.isLegacy()) {
            throw new IllegalArgumentException("a restored status names a generation of row versions, got " + generation);
        }
        long highest = highestAttempt(view, generation.number());
        // Numbers up to 'attempts' are accounted for, unless an attempt held the lease: it may have flipped since
        long accountedFor = seen.lease() == null ? Math.max(seen.attempts(), generation.number()) : generation.number();
        BsonDocument status = lastSeen.clone();
        status.remove("lease");
        status.put(ViewStatus.VERSION, new BsonInt64(-at.toEpochMilli()));
        status.put(ViewStatus.ATTEMPTS, new BsonInt64(Math.max(highest, Math.max(seen.attempts(), generation.number()))));
        BsonDocument stillLost = views.filter(view).append(views.statusField(), new BsonDocument("$exists", BsonBoolean.FALSE));
        boolean restored = views.collection()
            .updateOne(stillLost, new BsonDocument("$set", new BsonDocument(views.statusField(), status)))
            .getModifiedCount() == 1;
        if (!restored) {
            return Restored.STATUS_PRESENT;
        }
        return highest > accountedFor ? Restored.MAY_BE_STALE : Restored.RESTORED;
    }

    /** The highest generation number a version of the partition carries above the current one, or 0. */
    private long highestAttempt(ViewDefinition view, long current) {
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        String partition = view.partition();
        long added = highest(target, TargetRows.addedAbove(partitionField, partition, current), ViewFilter.FROM_FIELD);
        long closed = highest(target, TargetRows.closedAbove(partitionField, partition, current), ViewFilter.TO_FIELD);
        return Math.max(added, closed);
    }

    private static long highest(MongoCollection<BsonDocument> target, Bson filter, String field) {
        BsonDocument top = target.find(filter).sort(Sorts.descending(field)).projection(Projections.include(field))
            .limit(1).first();
        BsonValue value = top == null ? null : top.get(field);
        return value != null && value.isNumber() ? value.asNumber().longValue() : 0;
    }
}
