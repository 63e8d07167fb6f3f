package dev.materializer.core.write;

import java.time.Instant;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.view.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewFilter;
import dev.materializer.core.view.ViewState;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.conversions.Bson;

/**
 * Puts back the status of a view whose document an application replaced without it (a Spring Data
 * {@code save()} of the whole document): readers read nothing while the document names no
 * generation, so the engine names again the one it knows, at once, instead of writing the view anew.
 *
 * <p>What it guarantees: it writes only where the document still has no status (a compare-and-set
 * on the field's absence), so it never overwrites a status written since. The restored
 * {@code attempts} is at least every number a version in the target carries, so no later attempt
 * takes a number already used; the restored write {@code version} is the negative of the time of the
 * restore, a value no pass in flight can have started from, so such a pass gives way rather than
 * land on a status it did not read. The generation must be current: only the instance that owns the
 * partition, in its lane, calls it.
 */
public final class LostStatus {

    private final MongoDatabase database;

    private final ViewDocuments views;

    private final String partitionField;

    /**
     * @param database the database of the views and their targets
     * @param options the engine's options (views collection, partition and status fields)
     */
    public LostStatus(MongoDatabase database, MaterializerOptions options) {
        this.database = database;
        this.views = new ViewDocuments(database, options);
        this.partitionField = options.partitionField();
    }

    /**
     * Restores the status of a view at a generation.
     * @param view the view
     * @param generation its current generation, as the engine knows it
     * @param at when (host time)
     * @return true when restored; false when the document has a status again (or is gone)
     */
    public boolean restore(ViewDefinition view, Generation generation, Instant at) {
        long attempts = Math.max(generation.number(), highestAttempt(view, generation.number()));
        ViewStatus restored = new ViewStatus(ViewState.OK, null, at, generation, null, null, -at.toEpochMilli(), attempts);
        BsonDocument status = restored.toBson().append(StatusStore.FINGERPRINT_FIELD, new BsonString(view.fingerprint()));
        BsonDocument stillLost = views.filter(view).append(views.statusField(), new BsonDocument("$exists", BsonBoolean.FALSE));
        return views.collection()
            .updateOne(stillLost, new BsonDocument("$set", new BsonDocument(views.statusField(), status)))
            .getModifiedCount() == 1;
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
