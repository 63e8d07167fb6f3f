package dev.materializer.core.server;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns on change stream pre-images ({@code changeStreamPreAndPostImages}, MongoDB 6.0 and later)
 * on a source collection, when the engine's options ask for it: with them, a change event carries
 * the document as it was, and a key-scoped pass knows the key a document moved from or was deleted
 * with. An existing collection gets {@code collMod}; a missing one is created with the option.
 *
 * <p>Fails safe: a refusal (no privilege, an older server, the in-process test server) is logged
 * and the stream runs without pre-images, as before — those changes then run whole. The server
 * keeps pre-images until {@code changeStreamOptions.preAndPostImages.expireAfterSeconds} (a cluster
 * parameter) or until the oplog no longer holds their change.
 */
public final class PreImages {

    private static final Logger log = LoggerFactory.getLogger(PreImages.class);

    private static final int NAMESPACE_NOT_FOUND = 26;

    private PreImages() {
    }

    /**
     * Turns pre-images on for a collection.
     * @param database the database
     * @param collection the collection
     * @return true when the collection keeps pre-images now
     */
    public static boolean enable(MongoDatabase database, String collection) {
        try {
            try {
                database.runCommand(new BsonDocument("collMod", new BsonString(collection))
                    .append("changeStreamPreAndPostImages", new BsonDocument("enabled", BsonBoolean.TRUE)));
            }
            catch (MongoCommandException ex) {
                if (ex.getErrorCode() != NAMESPACE_NOT_FOUND) {
                    throw ex;
                }
                database.createCollection(collection, new CreateCollectionOptions()
                    .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
            }
            // A server may take the option and keep nothing: believe the collection's options, not the answer.
            boolean kept = CapabilityDetector.preImages(database, collection);
            if (kept) {
                log.info("Turned on change stream pre-images of {} (materializer.enable-pre-images)", collection);
            }
            else {
                log.warn("The server took the pre-images option of {} but does not keep them: a change there whose old"
                        + " key is unknown runs its views whole", collection);
            }
            return kept;
        }
        catch (MongoException ex) {
            log.warn("Could not turn on change stream pre-images of {} ({}): a change there whose old key is unknown"
                    + " runs its views whole", collection, ex.getMessage());
            return false;
        }
    }
}
