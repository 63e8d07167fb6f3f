package dev.materializer.core.server;

import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a source collection has an index that leads with the partition field. Every pipeline the
 * engine runs starts with a {@code $match} on that field (and, for a batch of tenants, an {@code $in}
 * over it), so without such an index each pass reads the whole collection: a pass of one tenant
 * costs as much as the collection, and a burst across tenants as much as the collection per batch.
 * The engine does not make the index itself: a source is the application's, and building an index
 * on a large collection is a decision for its owner. It says so instead, once per source.
 *
 * <p>Stateless.
 */
public final class SourceIndexes {

    private static final Logger log = LoggerFactory.getLogger(SourceIndexes.class);

    /** What the indexes of a source say of its partition field. */
    public enum Coverage {
        /** An index's first key is the partition field. */
        INDEXED,
        /** The collection has indexes, none of them leading with the partition field. */
        NOT_INDEXED,
        /** The collection does not exist yet, or its indexes could not be read. */
        UNKNOWN
    }

    private SourceIndexes() {
    }

    /**
     * Reads the indexes of a source.
     * @param database the engine's database
     * @param collection the source collection
     * @param partitionField the partition field
     * @return what they say of the partition field
     */
    public static Coverage coverage(MongoDatabase database, String collection, String partitionField) {
        boolean any = false;
        try {
            for (Document index : database.getCollection(collection).listIndexes()) {
                any = true;
                Object key = index.get("key");
                if (key instanceof Document fields && !fields.isEmpty()
                        && partitionField.equals(fields.keySet().iterator().next())) {
                    return Coverage.INDEXED;
                }
            }
        }
        catch (MongoException ex) {
            log.debug("The indexes of {} could not be read: {}", collection, ex.toString());
            return Coverage.UNKNOWN;
        }
        // A collection that exists has at least its _id index
        return any ? Coverage.NOT_INDEXED : Coverage.UNKNOWN;
    }

    /**
     * Says at WARN, with the remedy, when a source has no index leading with the partition field.
     * @param database the engine's database
     * @param collection the source collection
     * @param partitionField the partition field
     * @return what its indexes say
     */
    public static Coverage warnIfNotIndexed(MongoDatabase database, String collection, String partitionField) {
        Coverage coverage = coverage(database, collection, partitionField);
        if (coverage == Coverage.NOT_INDEXED) {
            log.warn("Source {} has no index that starts with the partition field '{}': every pass of its views reads "
                    + "the whole collection. Create one, e.g. db.{}.createIndex({{}: 1})", collection, partitionField,
                    collection, partitionField);
        }
        return coverage;
    }
}
