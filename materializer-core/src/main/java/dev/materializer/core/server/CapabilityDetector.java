package dev.materializer.core.server;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.TransactionOptions;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Detects what the deployment offers by trying it: a session and a read inside a transaction for
 * transactions (a standalone server accepts sessions but refuses transactions; some servers refuse
 * sessions), {@code buildInfo} for the version, a change stream opened with
 * {@code $changeStreamSplitLargeEvent} for split events, and the collection options for pre-images. No
 * server is special-cased. Every probe runs on the primary with the engine's concerns
 * ({@link EngineConcerns}), whatever the client's defaults.
 */
public final class CapabilityDetector {

    private static final Logger log = LoggerFactory.getLogger(CapabilityDetector.class);

    /** The major, minor and patch numbers at the start of a version ("7.0.2", "6.0.9-ent"). */
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

    /** The stage that splits change events over 16 MB (MongoDB 7.0, and 6.0.9). */
    private static final BsonDocument SPLIT_LARGE_EVENT = new BsonDocument("$changeStreamSplitLargeEvent",
            new BsonDocument());

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
        boolean split = versionMayOfferSplit(version)
                && opensChangeStream(primary, probeCollection, List.of(SPLIT_LARGE_EVENT));
        return new ServerCapabilities(transactions, version, split);
    }

    private static @Nullable String version(MongoDatabase database) {
        // A failure to answer at all means the server is unreachable: let it propagate.
        Document info;
        try {
            info = database.runCommand(new Document("buildInfo", 1));
        }
        catch (MongoCommandException ex) {
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
     * Whether the server offers {@code $changeStreamSplitLargeEvent}: its version may have it
     * (MongoDB 7.0 and later, 6.0.9 and later; an unknown version is tried), and it opens a change
     * stream with the stage.
     * @param database the engine's database
     * @param collection a collection to open the trial stream on
     * @return true when events over 16 MB can be split
     * @throws MongoException when the server cannot be reached
     */
    public static boolean splitLargeEvents(MongoDatabase database, String collection) {
        MongoDatabase primary = database.withReadPreference(EngineConcerns.READ_PREFERENCE);
        return versionMayOfferSplit(version(primary))
                && opensChangeStream(primary, collection, List.of(SPLIT_LARGE_EVENT));
    }

    /**
     * Whether a server of this version may offer {@code $changeStreamSplitLargeEvent}: not before
     * 6.0.9, and not in 6.0 before its ninth patch. Versions it does not parse are given the benefit
     * of the doubt, for the trial to decide.
     * @param version the version {@code buildInfo} gave, or null
     * @return false only when the version surely lacks the stage
     */
    static boolean versionMayOfferSplit(@Nullable String version) {
        if (version == null) {
            return true;
        }
        Matcher numbers = VERSION.matcher(version);
        if (!numbers.find()) {
            return true;
        }
        int major = Integer.parseInt(numbers.group(1));
        int minor = Integer.parseInt(numbers.group(2));
        int patch = numbers.group(3) == null ? 0 : Integer.parseInt(numbers.group(3));
        if (major != 6) {
            return major > 6;
        }
        return minor > 0 || patch >= 9;
    }

    /**
     * Whether the server opens a change stream with these stages after {@code $changeStream}: the
     * honest test of a stage, as servers that lack one refuse the aggregate.
     * @param database the database
     * @param collection the collection to watch for a moment
     * @param stages the stages to try
     * @return false when the server refuses them
     * @throws MongoException when the server cannot be reached
     */
    public static boolean opensChangeStream(MongoDatabase database, String collection, List<? extends Bson> stages) {
        try (MongoCursor<?> cursor = database.getCollection(collection, BsonDocument.class)
            .watch(stages)
            .withDocumentClass(BsonDocument.class)
            .cursor()) {
            return cursor != null;
        }
        catch (MongoCommandException ex) {
            log.debug("The server refuses a change stream with {}: {}", stages, ex.getErrorMessage());
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
