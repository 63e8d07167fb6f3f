package dev.materializer.core.write;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Indexes;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure each target has the indexes of row versions: {@code {partition: 1, _viewTo: 1,
 * _viewFrom: 1}}, which a reader's filter ({@code _viewTo > g}, {@code _viewFrom <= g}), the sweep
 * ({@code _viewTo <= g}) and the undoing of an attempt use; and {@code {partition: 1, _viewRow: 1}},
 * which the pass's sorted read of the stored rows uses. Tried once per target; a failure (no right
 * to create indexes, say) only costs speed, so it is logged and ignored.
 *
 * <p>Thread-safe.
 */
final class TargetIndexes {

    private static final Logger log = LoggerFactory.getLogger(TargetIndexes.class);

    private final MongoDatabase database;

    private final String partitionField;

    private final Set<String> done = ConcurrentHashMap.newKeySet();

    TargetIndexes(MongoDatabase database, String partitionField) {
        this.database = database;
        this.partitionField = partitionField;
    }

    void ensure(String target) {
        if (!done.add(target)) {
            return;
        }
        create(target, Indexes.ascending(partitionField, ViewFilter.TO_FIELD, ViewFilter.FROM_FIELD));
        create(target, Indexes.ascending(partitionField, ViewFilter.ROW_FIELD));
    }

    private void create(String target, Bson keys) {
        try {
            database.getCollection(target, BsonDocument.class).createIndex(keys);
        }
        catch (MongoException ex) {
            log.warn("The index {} on target {} could not be created: {}", keys.toBsonDocument().toJson(), target,
                    MongoFailures.messageOf(ex));
        }
    }
}
