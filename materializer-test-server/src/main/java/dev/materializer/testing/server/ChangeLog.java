package dev.materializer.testing.server;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.Oplog;
import dev.materializer.testing.server.InProcessCollection.Change;
import org.jspecify.annotations.Nullable;

/**
 * The oplog of the in-process server, and the change streams read from it, as MongoDB documents
 * them: each event has its {@code ns}, {@code documentKey}, {@code clusterTime} and
 * {@code wallTime}; an update its {@code updateDescription}; an update without operators is a
 * {@code replace}; a drop is followed by an {@code invalidate} that closes a collection's stream.
 * Pre-images (and post-images) are kept for the collections that have
 * {@code changeStreamPreAndPostImages} enabled at the time of the write ({@link CollectionSettings}),
 * and expire after {@link #preImagesExpireAfter} when set.
 *
 * <p>It keeps the last {@link #capacity} entries: a stream that resumes from before the oldest one
 * is refused with {@code ChangeStreamHistoryLost}, as MongoDB refuses one whose point fell off the
 * oplog. A stream reads only the entries after its position, not the whole log.
 *
 * <p>Threads: the log is guarded by its own lock, taken by writers (inside the lock of the
 * collection written) and readers; no collection lock is taken while it is held. The entries of one
 * command are appended under one hold of it, so a stream reads all of a command's changes or none
 * (the plain backend writes a command under the collection's lock: no reader sees half of it).
 */
final class ChangeLog implements Oplog {

    private final Clock clock;

    private final CursorRegistry cursorRegistry;

    private final CollectionSettings settings;

    private final DocumentLookup lookup;

    private final int capacity;

    private final @Nullable Duration preImagesExpireAfter;

    private final Deque<Entry> entries = new ArrayDeque<>();

    private long lastTimestamp;

    /** The timestamp of the newest entry ever trimmed off; 0 when none was. */
    private long trimmedUpTo;

    /**
     * @param lookup finds a document by namespace and {@code _id}, for {@code fullDocument: updateLookup}
     * @param capacity the entries kept
     * @param preImagesExpireAfter how long pre- and post-images are kept; null for as long as the entry
     */
    ChangeLog(Clock clock, CursorRegistry cursorRegistry, CollectionSettings settings, DocumentLookup lookup,
            int capacity, @Nullable Duration preImagesExpireAfter) {
        this.clock = clock;
        this.cursorRegistry = cursorRegistry;
        this.settings = settings;
        this.lookup = lookup;
        this.capacity = capacity;
        this.preImagesExpireAfter = preImagesExpireAfter;
    }

    /** Finds the current version of a document, for {@code fullDocument: updateLookup}. */
    interface DocumentLookup {

        /** The document of that namespace with that {@code _id}, or null. */
        @Nullable Document find(String namespace, Object id);
    }

    /** The kinds of entries, by the {@code operationType} of their events. */
    enum Operation {
        INSERT("insert"), UPDATE("update"), REPLACE("replace"), DELETE("delete"), DROP("drop");

        private final String eventName;

        Operation(String eventName) {
            this.eventName = eventName;
        }

        String eventName() {
            return eventName;
        }
    }

    /**
     * One write of one document (or a drop).
     *
     * @param timestamp the cluster time, as a {@link BsonTimestamp} value
     * @param wall the wall time of the write
     * @param namespace {@code db.collection}
     * @param documentKey {@code {_id}}; null for a drop
     * @param document the document inserted or replacing; for an update, its post-image when kept
     * @param preImage the document before an update, replace or delete, when kept
     * @param updateDescription of an update
     */
    record Entry(long timestamp, Instant wall, Operation operation, String namespace, @Nullable Document documentKey,
            @Nullable Document document, @Nullable Document preImage, @Nullable Document updateDescription) {
    }

    @Override
    public synchronized void handleInsert(String namespace, List<Document> documents) {
        for (Document document : documents) {
            append(Operation.INSERT, namespace, key(document), document.cloneDeeply(), null, null);
        }
    }

    @Override
    public void handleUpdate(String namespace, Document selector, Document query, List<Object> modifiedIds) {
        // Updates reach this log through handleUpdates, with their documents; a write that does not is a bug.
        throw new IllegalStateException("an update of " + namespace + " reached the change log without its documents");
    }

    /** The documents one update command changed. */
    synchronized void handleUpdates(String namespace, Document update, List<Change> changes) {
        boolean images = settings.preAndPostImages(namespace);
        boolean replacement = update.keySet().stream().noneMatch(key -> key.startsWith("$"));
        for (Change change : changes) {
            Document after = change.after();
            Document original = change.before();
            if (after == null || original == null) {
                continue;
            }
            Document before = images ? original : null;
            if (replacement) {
                append(Operation.REPLACE, namespace, key(after), after, before, null);
            }
            else {
                append(Operation.UPDATE, namespace, key(after), images ? after : null, before,
                        UpdateDescriptions.describe(original, after, update));
            }
        }
    }

    @Override
    public void handleDelete(String namespace, Document query, List<Object> deletedIds) {
        throw new IllegalStateException("a delete of " + namespace + " reached the change log without its documents");
    }

    /** The documents one delete command removed. */
    synchronized void handleDeletes(String namespace, List<Change> changes) {
        boolean images = settings.preAndPostImages(namespace);
        for (Change change : changes) {
            Document before = change.before();
            if (before != null) {
                append(Operation.DELETE, namespace, key(before), null, images ? before : null, null);
            }
        }
    }

    @Override
    public void handleDropCollection(String namespace) {
        settings.forget(namespace);
        append(Operation.DROP, namespace, null, null, null, null);
    }

    private static Document key(Document document) {
        return new Document("_id", document.get("_id"));
    }

    private synchronized void append(Operation operation, String namespace, @Nullable Document documentKey,
            @Nullable Document document, @Nullable Document preImage, @Nullable Document updateDescription) {
        if (namespace.startsWith("local.") || namespace.startsWith("config.")) {
            return;
        }
        Instant now = clock.instant();
        entries.addLast(new Entry(nextTimestamp(now), now, operation, namespace, documentKey, document, preImage,
                updateDescription));
        while (entries.size() > capacity) {
            trimmedUpTo = entries.removeFirst().timestamp();
        }
    }

    /** Increasing timestamps: the clock's seconds, counting up within a second (and if the clock goes back). */
    private long nextTimestamp(Instant now) {
        long candidate = new BsonTimestamp(now, 1).getValue();
        lastTimestamp = Math.max(candidate, lastTimestamp + 1);
        return lastTimestamp;
    }

    /** The timestamp of the newest entry, or of now when there is none. */
    synchronized long latest() {
        return entries.isEmpty() ? Math.max(lastTimestamp, new BsonTimestamp(clock.instant(), 0).getValue())
                : entries.getLast().timestamp();
    }

    /**
     * The entries of a namespace after a timestamp, at most {@code limit} (0: all).
     *
     * @throws MongoServerError {@code ChangeStreamHistoryLost} when entries after it were trimmed off
     */
    synchronized List<Entry> after(long timestamp, String namespace, int limit) {
        if (timestamp < trimmedUpTo) {
            throw new MongoServerError(286, "ChangeStreamHistoryLost",
                    "Resume of change stream was not possible, as the resume point may no longer be in the oplog");
        }
        List<Entry> found = new ArrayList<>();
        var iterator = entries.descendingIterator();
        List<Entry> newer = new ArrayList<>();
        while (iterator.hasNext()) {
            Entry entry = iterator.next();
            if (entry.timestamp() <= timestamp) {
                break;
            }
            newer.add(entry);
        }
        for (int i = newer.size() - 1; i >= 0 && (limit <= 0 || found.size() < limit); i--) {
            Entry entry = newer.get(i);
            if (entry.namespace().equals(namespace)) {
                found.add(entry);
            }
        }
        return found;
    }

    /** Whether this entry's images are still kept. */
    boolean imagesKept(Entry entry) {
        return preImagesExpireAfter == null || !entry.wall().plus(preImagesExpireAfter).isBefore(clock.instant());
    }

    @Override
    public Cursor createCursor(Document changeStreamDocument, String namespace, Aggregation aggregation) {
        String collection = Utils.getCollectionNameFromFullName(namespace);
        if (collection.equals("1")) {
            throw new MongoServerError(115, "CommandNotSupported",
                    "the in-process test server offers change streams on a collection only, not on a database or cluster");
        }
        ChangeStreamOptions options = ChangeStreamOptions.parse(changeStreamDocument, this);
        ChangeStreamCursor cursor = new ChangeStreamCursor(cursorRegistry.generateCursorId(), this, namespace,
                options, aggregation);
        cursorRegistry.add(cursor);
        return cursor;
    }

    /** The event of an entry, for a stream with these options. */
    Document event(Entry entry, ChangeStreamOptions options) {
        Document event = new Document("_id", ResumeToken.of(entry.timestamp(), false))
            .append("operationType", entry.operation().eventName())
            .append("clusterTime", new BsonTimestamp(entry.timestamp()))
            .append("wallTime", entry.wall());
        String database = Utils.getDatabaseNameFromFullName(entry.namespace());
        String collection = Utils.getCollectionNameFromFullName(entry.namespace());
        boolean images = imagesKept(entry);
        switch (entry.operation()) {
            case INSERT, REPLACE -> event.append("fullDocument", entry.document());
            case UPDATE -> {
                if (options.fullDocument() == ChangeStreamOptions.Image.LOOKUP) {
                    event.append("fullDocument", lookup.find(entry.namespace(), entry.documentKey().get("_id")));
                }
                else if (options.fullDocument() != ChangeStreamOptions.Image.OFF) {
                    Document postImage = images ? entry.document() : null;
                    requireImage(postImage, options.fullDocument(), "post-image");
                    event.append("fullDocument", postImage);
                }
            }
            default -> {
            }
        }
        event.append("ns", new Document("db", database).append("coll", collection));
        if (entry.documentKey() != null) {
            event.append("documentKey", entry.documentKey());
        }
        if (entry.updateDescription() != null) {
            event.append("updateDescription", entry.updateDescription());
        }
        boolean hasBefore = entry.operation() == Operation.UPDATE || entry.operation() == Operation.REPLACE
                || entry.operation() == Operation.DELETE;
        if (hasBefore && options.fullDocumentBeforeChange() != ChangeStreamOptions.Image.OFF) {
            Document preImage = images ? entry.preImage() : null;
            requireImage(preImage, options.fullDocumentBeforeChange(), "pre-image");
            event.append("fullDocumentBeforeChange", preImage);
        }
        return event;
    }

    private static void requireImage(@Nullable Document image, ChangeStreamOptions.Image wanted, String what) {
        if (image == null && wanted == ChangeStreamOptions.Image.REQUIRED) {
            throw new MongoServerError(280, "ChangeStreamFatalError",
                    "Change stream was configured to require a " + what + " for all update, delete and replace events,"
                            + " but the " + what + " was not found (is changeStreamPreAndPostImages enabled on the collection?)");
        }
    }

    /** The invalidate event that follows a drop. */
    static Document invalidate(Entry drop) {
        return new Document("_id", ResumeToken.of(drop.timestamp(), true))
            .append("operationType", "invalidate")
            .append("clusterTime", new BsonTimestamp(drop.timestamp()))
            .append("wallTime", drop.wall());
    }
}
