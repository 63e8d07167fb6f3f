package dev.materializer.core.write;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/**
 * Prepares the first pass of a view in a place: a new view, or one given another target or moved to
 * another partition (see {@link dev.materializer.core.GenerationPlace}). The versions of its partition
 * there are not its own — a view that left the place left them, numbered by its own attempts — and a
 * first pass removes only the versions numbered below its attempt (a removal landing late must
 * never touch a later pass's versions). So the view's count of attempts is first raised past every
 * number those versions carry: its attempt then removes them all, and none of them can ever show in
 * one of its generations.
 *
 * <p>Immutable and thread-safe.
 */
final class Arrival {

    private final MongoDatabase database;

    private final ViewDocuments views;

    private final TargetRows rows;

    Arrival(MongoDatabase database, WriteSettings options, TargetRows rows) {
        this.database = database;
        this.views = new ViewDocuments(database, options);
        this.rows = rows;
    }

    /**
     * Raises the view's count of attempts ({@code $max}) to the highest number a version of its
     * partition in its target carries. Counts only grow, so this never wrongs a pass of the view: one
     * that started before takes a lower number, which its compare-and-sets fence as always.
     * @return whether the count was raised (the pass reads the status again)
     * @throws com.mongodb.MongoException when the deployment fails
     */
    boolean numberPastWhatIsThere(ViewDefinition view) {
        BsonDocument top = database.getCollection(view.targetCollection(), BsonDocument.class)
            .find(rows.versionsBefore(view.partition(), Long.MAX_VALUE))
            .sort(new BsonDocument(ViewFilter.FROM_FIELD, new BsonInt32(-1)))
            .projection(Projections.include(ViewFilter.FROM_FIELD))
            .limit(1)
            .first();
        BsonValue highest = top == null ? null : top.get(ViewFilter.FROM_FIELD);
        if (highest == null || !highest.isNumber()) {
            return false;
        }
        return views.collection().updateOne(views.filter(view), new BsonDocument("$max",
                new BsonDocument(views.status(ViewStatus.ATTEMPTS), new BsonInt64(highest.asNumber().longValue()))))
            .getModifiedCount() == 1;
    }
}
