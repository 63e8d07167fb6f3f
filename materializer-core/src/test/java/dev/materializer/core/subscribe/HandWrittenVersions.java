package dev.materializer.core.subscribe;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Updates;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.stream.StreamListener;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A view written by hand the way the writer writes it: versions opened and closed at the attempt's
 * number, then the flip of the status; and the views stream's events, handed to a listener when a
 * test says so (so a test decides which flips the stream shows).
 */
final class HandWrittenVersions {

    final MaterializerOptions options = MaterializerOptions.defaults();

    final MongoDatabase db;

    final String id;

    final String partition;

    String target;

    private long generation;

    private long attempts;

    /** The superseded generations, oldest first, as {@code earlier} keeps them. */
    private final org.bson.BsonArray superseded = new org.bson.BsonArray();

    /** The open version of each row, by row id. */
    private final Map<BsonValue, BsonDocument> open = new LinkedHashMap<>();

    HandWrittenVersions(MongoDatabase db, String id, String partition, String target) {
        this.db = db;
        this.id = id;
        this.partition = partition;
        this.target = target;
        views().replaceOne(Filters.eq("_id", id), viewDocument(null), new ReplaceOptions().upsert(true));
    }

    MongoCollection<BsonDocument> views() {
        return db.getCollection(options.viewsCollection(), BsonDocument.class);
    }

    MongoCollection<BsonDocument> rows() {
        return db.getCollection(target, BsonDocument.class);
    }

    long generation() {
        return generation;
    }

    /** One flip: the rows given are set (a null content removes the row). */
    long flip(Map<String, Integer> changes) {
        long number = ++attempts;
        changes.forEach((row, value) -> {
            BsonValue rowId = new BsonString(row);
            BsonDocument current = open.remove(rowId);
            if (current != null) {
                rows().updateOne(Filters.eq("_id", current.get("_id")), Updates.set(ViewFilter.TO_FIELD, number));
            }
            if (value != null) {
                BsonDocument version = new BsonDocument("_id", new BsonDocument("partition", new BsonString(partition))
                        .append("generation", new BsonInt64(number)).append("id", rowId))
                    .append("value", new BsonInt32(value))
                    .append(options.partitionField(), new BsonString(partition))
                    .append(ViewFilter.ROW_FIELD, rowId)
                    .append(ViewFilter.FROM_FIELD, new BsonInt64(number))
                    .append(ViewFilter.TO_FIELD, new BsonInt64(ViewFilter.OPEN))
                    .append(ViewFilter.HASH_FIELD, new BsonString("h" + value));
                rows().insertOne(version);
                open.put(rowId, version);
            }
        });
        BsonDocument previous = new BsonDocument("generation", generation == 0 ? BsonNull.VALUE : new BsonInt64(generation))
            .append("flippedAt", new BsonDateTime(Instant.now().toEpochMilli()));
        org.bson.BsonArray earlier = superseded.clone();
        superseded.add(previous);
        BsonDocument status = new BsonDocument("state", new BsonString("ok"))
            .append("generation", new BsonInt64(number))
            .append("previous", previous)
            .append("earlier", earlier)
            .append("attempts", new BsonInt64(attempts))
            .append("target", new BsonDocument("collection", new BsonString(target))
                .append("partition", new BsonString(partition)));
        generation = number;
        views().replaceOne(Filters.eq("_id", id), viewDocument(status));
        return number;
    }

    /** A first pass in the view's place: every version below its number goes, the rows are written anew. */
    long rewrite(Map<String, Integer> rows) {
        long number = attempts + 1;
        rows().deleteMany(Filters.and(Filters.eq(options.partitionField(), partition),
                Filters.lt(ViewFilter.FROM_FIELD, number)));
        open.clear();
        return flip(rows);
    }

    private BsonDocument viewDocument(BsonDocument status) {
        BsonDocument document = new BsonDocument("_id", new BsonString(id))
            .append(options.partitionField(), new BsonString(partition))
            .append("targetCollection", new BsonString(target));
        if (status != null) {
            document.append(options.statusField(), status);
        }
        return document;
    }

    /** What the views stream would hand over now for the view. */
    void heard(StreamListener listener) {
        BsonDocument document = views().find(Filters.eq("_id", id)).first();
        listener.onChange(options.viewsCollection(), document == null
                ? new SourceChange(SourceChange.Operation.DELETE, null, null, new BsonString(id), null, null, null)
                : new SourceChange(SourceChange.Operation.UPDATE, document, null, new BsonString(id), null, null, null));
    }

    void delete() {
        views().deleteOne(Filters.eq("_id", id));
    }

    /** The rows readers of a generation read, by row id, with their value. */
    Map<String, Integer> rowsAt(long at) {
        Map<String, Integer> rows = new LinkedHashMap<>();
        for (BsonDocument version : rows().find(ViewFilter.of(options.partitionField(), partition,
                dev.materializer.core.Generation.of(at)))) {
            rows.put(version.getString(ViewFilter.ROW_FIELD).getValue(), version.getInt32("value").getValue());
        }
        return rows;
    }

    static Map<String, Integer> rows(Object... pairs) {
        Map<String, Integer> rows = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            rows.put((String) pairs[i], (Integer) pairs[i + 1]);
        }
        return rows;
    }

    static List<String> ids(List<dev.materializer.core.ViewRow> rows) {
        List<String> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.id().asString().getValue()));
        return ids;
    }
}
