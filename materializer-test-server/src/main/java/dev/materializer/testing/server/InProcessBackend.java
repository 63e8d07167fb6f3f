package dev.materializer.testing.server;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import org.jspecify.annotations.Nullable;

/**
 * mongo-java-server's in-memory backend, made to answer more as MongoDB does where the
 * Materializer reads it: change events with {@code ns}, the {@code documentKey},
 * {@code updateDescription}, {@code replace} events, pre- and post-images
 * ({@code changeStreamPreAndPostImages} through {@code create} and {@code collMod}), an
 * {@code invalidate} after a drop; queries that name {@code _id} with other fields served by the
 * {@code _id} index; non-unique indexes kept and used for queries and an aggregate's leading
 * {@code $match} ({@link SecondaryIndex}); the aggregation forms it lacked ({@link PipelineRewrite}).
 * What it still cannot do it refuses with an error that says so. docs/compatibility.md lists both.
 *
 * <p>Start it with {@link InProcessMongoServer}, which also turns its oplog on.
 *
 * <p>Threads: as the plain backend, one thread per connection; see {@link ChangeLog} for the log.
 */
public class InProcessBackend extends MemoryBackend {

    /** The entries the change log keeps by default: a stream further behind than that is refused. */
    public static final int DEFAULT_LOG_CAPACITY = 200_000;

    /** Whether the server takes {@code changeStreamPreAndPostImages}. */
    public enum PreImages {
        /** Taken through {@code create} and {@code collMod}, and the images kept: MongoDB 6.0 and later. */
        KEPT,
        /**
         * Refused, with MongoDB 5.0's errors ({@code collMod}: {@code InvalidOptions}; {@code create}: an
         * unknown field): to run what an application does on a server without pre-images.
         */
        REFUSED
    }

    private final CollectionSettings settings;

    private final int logCapacity;

    private final @Nullable Duration preImagesExpireAfter;

    /** A backend on the system clock, its images kept as long as their entries. */
    public InProcessBackend() {
        this(Clock.systemUTC(), DEFAULT_LOG_CAPACITY, null);
    }

    /**
     * @param clock the clock of cluster and wall times
     * @param logCapacity the entries the change log keeps
     * @param preImagesExpireAfter how long pre- and post-images are kept (MongoDB's
     *     {@code changeStreamOptions.preAndPostImages.expireAfterSeconds}); null for as long as their entries
     */
    public InProcessBackend(Clock clock, int logCapacity, @Nullable Duration preImagesExpireAfter) {
        this(clock, logCapacity, preImagesExpireAfter, PreImages.KEPT);
    }

    /**
     * @param clock the clock of cluster and wall times
     * @param logCapacity the entries the change log keeps
     * @param preImagesExpireAfter how long pre- and post-images are kept; null for as long as their entries
     * @param preImages whether the server takes {@code changeStreamPreAndPostImages}
     */
    public InProcessBackend(Clock clock, int logCapacity, @Nullable Duration preImagesExpireAfter, PreImages preImages) {
        super(clock);
        if (logCapacity < 1) {
            throw new IllegalArgumentException("the change log must keep at least one entry, not " + logCapacity);
        }
        this.logCapacity = logCapacity;
        this.preImagesExpireAfter = preImagesExpireAfter;
        this.settings = new CollectionSettings(preImages);
    }

    /** A backend on the system clock that refuses {@code changeStreamPreAndPostImages}, as MongoDB 5.0 does. */
    public static InProcessBackend refusingPreImages() {
        return new InProcessBackend(Clock.systemUTC(), DEFAULT_LOG_CAPACITY, null, PreImages.REFUSED);
    }

    @Override
    public MemoryDatabase openOrCreateDatabase(String databaseName) {
        return new InProcessDatabase(databaseName, getCursorRegistry(), settings, this::openCollection);
    }

    /**
     * The collection the server opens for that name: an {@link InProcessCollection}. A subclass may
     * return a subclass of it that observes its queries (the benchmarks count the documents each
     * collection examines). The system collection a database opens first ({@code system.namespaces})
     * is always a plain {@link InProcessCollection}: it is opened before this hook is set.
     */
    protected InProcessCollection openCollection(MongoDatabase database, String collectionName,
            CollectionOptions options, CursorRegistry cursorRegistry) {
        return new InProcessCollection(database, collectionName, options, cursorRegistry);
    }

    @Override
    public Document handleMessage(MongoMessage message) {
        Document query = message.getDocument();
        if (query.isEmpty() || message.getDatabaseName().equals("admin")) {
            return super.handleMessage(message);
        }
        String command = query.keySet().iterator().next();
        if (!InProcessDatabase.COMMANDS.contains(command.toLowerCase(Locale.ROOT))
                || !(resolveDatabase(message.getDatabaseName()) instanceof InProcessDatabase database)) {
            return super.handleMessage(message);
        }
        return database.handle(command, query, oplog, () -> super.handleMessage(message));
    }

    @Override
    protected Oplog createOplog() {
        return new ChangeLog(getClock(), getCursorRegistry(), settings, this::find, logCapacity, preImagesExpireAfter);
    }

    private @Nullable Document find(String namespace, Object id) {
        MongoDatabase database = resolveDatabase(Utils.getDatabaseNameFromFullName(namespace));
        MongoCollection<?> collection = database.resolveCollection(Utils.getCollectionNameFromFullName(namespace), false);
        if (collection == null) {
            return null;
        }
        Iterator<Document> found = collection.handleQuery(new Document("_id", id), 0, 1).iterator();
        return found.hasNext() ? found.next() : null;
    }
}
