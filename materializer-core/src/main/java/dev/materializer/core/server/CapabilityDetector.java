package dev.materializer.core.server;

import java.util.concurrent.TimeUnit;

import com.mongodb.MongoException;
import com.mongodb.TransactionOptions;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import org.bson.BsonDocument;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Detects what the deployment offers by trying it: a session and a read inside a transaction for
 * transactions (a standalone server accepts sessions but refuses transactions; some servers refuse
 * sessions), {@code buildInfo} for the version, and the collection options for pre-images. No
 * server is special-cased. Every probe runs on the primary with the engine's concerns
 * ({@link EngineConcerns}), whatever the client's defaults.
 */
public final class CapabilityDetector {

    private static final Logger log = LoggerFactory.getLogger(CapabilityDetector.class);

    private CapabilityDetector() {
    }

    /**
     * Detects the deployment's capabilities.
     * @param client the client
     * @param database the engine's database
     * @param probeCollection a collection of the engine to read in the probe transaction
     * @return what was found
     * @throws MongoException when the server cannot be reached at all
     */
    public static ServerCapabilities detect(MongoClient client, MongoDatabase database, String probeCollection) {
        // On the primary whatever handle the caller passes: what the deployment offers is what its
        // primary offers, and the engine reads and writes only there.
        MongoDatabase primary = database.withReadPreference(EngineConcerns.READ_PREFERENCE);
        String version = version(primary);
        boolean transactions = transactions(client, primary.getCollection(probeCollection, BsonDocument.class));
        return new ServerCapabilities(transactions, version);
    }

    private static @Nullable String version(MongoDatabase database) {
        // A failure to answer at all means the server is unreachable: let it propagate.
        Document info;
        try {
            info = database.runCommand(new Document("buildInfo", 1));
        }
        catch (com.mongodb.MongoCommandException ex) {
            return null;
        }
        Object version = info.get("version");
        return version == null ? null : version.toString();
    }

    private static boolean transactions(MongoClient client, MongoCollection<BsonDocument> probe) {
        try (ClientSession session = client.startSession()) {
            // The engine's own options: without the primary named, the session would inherit the
            // client's read preference, and a transaction refuses any other (secondaryPreferred
            // would read as "no transactions").
            session.startTransaction(TransactionOptions.merge(
                    TransactionOptions.builder().maxCommitTime(5L, TimeUnit.SECONDS).build(), EngineConcerns.TRANSACTION));
            probe.find(session, Filters.eq("_id", "transaction-probe")).first();
            session.commitTransaction();
            return true;
        }
        catch (MongoException | UnsupportedOperationException | IllegalStateException ex) {
            log.debug("Transactions are not available: {}", ex.toString());
            return false;
        }
    }

    /**
     * Whether a collection keeps pre-images for change streams.
     * @param database the database
     * @param collection the collection
     * @return true when {@code changeStreamPreAndPostImages} is enabled on it
     */
    public static boolean preImages(MongoDatabase database, String collection) {
        try {
            Document info = database.listCollections().filter(Filters.eq("name", collection)).first();
            Object options = info == null ? null : info.get("options");
            Object preImages = options instanceof Document document ? document.get("changeStreamPreAndPostImages") : null;
            return preImages instanceof Document document && Boolean.TRUE.equals(document.get("enabled"));
        }
        catch (MongoException ex) {
            log.debug("Could not read the options of {}: {}", collection, ex.toString());
            return false;
        }
    }

}
