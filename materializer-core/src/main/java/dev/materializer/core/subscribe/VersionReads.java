package dev.materializer.core.subscribe;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.ViewRow;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewFilter;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The reads of subscriptions in a view's target: the rows of a generation (a snapshot), one version
 * of a generation (a witness that its rows are still there), and the versions that moved between
 * two generations — one find whose branches the index {@code {partition, _viewTo, _viewFrom}} of
 * every target serves ({@code _viewTo} in a range; {@code _viewFrom} in a range, one seek per
 * {@code _viewTo} value, which are the open mark and the numbers closed within the grace).
 *
 * <p>Immutable and thread-safe.
 */
final class VersionReads {

    private final MongoDatabase database;

    private final String partitionField;

    private final RowKeys keys;

    VersionReads(MongoDatabase database, String partitionField, RowKeys keys) {
        this.database = database;
        this.partitionField = partitionField;
        this.keys = keys;
    }

    /** Every row readers of a generation read. */
    List<ViewRow> rowsOf(String target, String partition, Generation generation) {
        List<ViewRow> rows = new ArrayList<>();
        for (BsonDocument version : collection(target).find(ViewFilter.of(partitionField, partition, generation))) {
            rows.add(keys.row(version));
        }
        return rows;
    }

    /** One version readers of a generation see, or null when they see none. */
    @Nullable BsonDocument oneOf(String target, String partition, Generation generation) {
        return collection(target).find(ViewFilter.of(partitionField, partition, generation)).limit(1).first();
    }

    /**
     * Feeds the versions opened or closed at a number in {@code (from, to]}, and the witness when
     * given, to the deltas.
     * @return whether the witness was among them (false when none was given)
     */
    boolean moved(String target, String partition, @Nullable BsonValue witness, FlipDeltas into, long from, long to) {
        BsonDocument range = new BsonDocument("$gt", new BsonInt64(from)).append("$lte", new BsonInt64(to));
        BsonArray branches = new BsonArray();
        branches.add(new BsonDocument(ViewFilter.TO_FIELD, range));
        branches.add(new BsonDocument(ViewFilter.FROM_FIELD, range.clone()));
        if (witness != null) {
            branches.add(new BsonDocument("_id", witness));
        }
        BsonDocument filter = new BsonDocument(partitionField, new BsonString(partition)).append("$or", branches);
        boolean seen = false;
        for (BsonDocument version : collection(target).find(filter)) {
            if (witness != null && witness.equals(version.get("_id"))) {
                seen = true;
            }
            into.add(version);
        }
        return seen;
    }

    private MongoCollection<BsonDocument> collection(String target) {
        return database.getCollection(target, BsonDocument.class);
    }
}
