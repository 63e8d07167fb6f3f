package dev.materializer.core.server;

import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The indexes the engine needs on its own collections, made at start (creating an index that
 * exists is a no-op): the views collection by partition (every run reads the current generations
 * of its partition's views) and the checkpoints by kind and collection (a stream's first open looks
 * for the checkpoints of its collection).
 *
 * <p>Stateless.
 */
public final class EngineIndexes {

    private static final Logger log = LoggerFactory.getLogger(EngineIndexes.class);

    private EngineIndexes() {
    }

    /**
     * Makes the indexes; a failure is logged and the engine goes on (reads only get slower).
     * @param database the engine's database
     * @param viewsCollection the views collection
     * @param partitionField the partition field
     * @param checkpointsCollection the checkpoints collection
     */
    public static void ensure(MongoDatabase database, String viewsCollection, String partitionField,
            String checkpointsCollection) {
        try {
            database.getCollection(viewsCollection)
                .createIndex(Indexes.ascending(partitionField), new IndexOptions().name("materializer_partition"));
            database.getCollection(checkpointsCollection)
                .createIndex(Indexes.ascending("kind", "collection"), new IndexOptions().name("materializer_kind"));
        }
        catch (MongoException ex) {
            log.warn("The engine's indexes were not made ({}); reads of views and checkpoints scan their collections",
                    ex.getMessage());
        }
    }
}
