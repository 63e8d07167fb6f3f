package dev.materializer.core.write;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Indexes;
import dev.materializer.core.view.ViewFilter;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure each target has the index {@code {partition: 1, _viewGen: 1}} that readers, sweeps
 * and removals filter on. Tried once per target; a failure (no right to create indexes, say) only
 * costs speed, so it is logged and ignored.
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
        try {
            database.getCollection(target, BsonDocument.class)
                .createIndex(Indexes.ascending(partitionField, ViewFilter.GENERATION_FIELD));
        }
        catch (MongoException ex) {
            log.warn("The index {{}: 1, {}: 1} on target {} could not be created: {}", partitionField,
                    ViewFilter.GENERATION_FIELD, target, MongoFailures.messageOf(ex));
        }
    }
}
