package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import dev.materializer.testing.server.IdIndexedCollection;
import org.jspecify.annotations.Nullable;

/**
 * mongo-java-server's in-memory backend, counting the documents each collection examines, by the
 * command that made it examine them. mongo-java-server has no explain statistics; this is the
 * seam it has: every document a query of a collection looks at (a scan, or the positions a unique
 * index gives) goes through {@code AbstractMongoCollection.documentMatchesQuery}, and an aggregation
 * reads its input through {@code MongoCollection.queryAllAsStream()}, which scans the collection
 * with an empty query. So:
 *
 * <ul>
 *   <li><b>examined</b>: the calls of {@code documentMatchesQuery} on the collection, by the name of
 *       the command the server was answering ({@code aggregate}, {@code find}, {@code update},
 *       {@code delete}, {@code getMore}...; an aggregation that opens a change stream is
 *       {@code aggregate $changeStream}). This server uses no secondary index and no index at all in
 *       an aggregation: an {@code aggregate} examines every document of the collection, whatever
 *       its {@code $match}. A {@code getMore} of a change stream examines the oplog, and the source
 *       document of each update event when it looks up the full document ({@code updateLookup}):
 *       this server finds it by scanning the collection, where MongoDB reads it by {@code _id}; so a
 *       look-up is counted once, as {@link #LOOKUPS}, and its scan apart, as {@link #LOOKUP_SCANS}.</li>
 *   <li><b>passed the leading $match</b>: of the documents an {@code aggregate} reads from the
 *       collection, those that pass the pipeline's leading {@code $match} stages (all of them, taken
 *       together, as MongoDB coalesces adjacent {@code $match} stages), counted as the pipeline reads
 *       them. It is what a server examines at best for the pipeline: with an index that covers that
 *       match. None when the pipeline does not start with a {@code $match}.</li>
 * </ul>
 *
 * <p>One more difference from the plain backend, for speed, not for counts of sources: a query that
 * names {@code _id} beside other fields is answered through the {@code _id} index, then matched
 * whole, as MongoDB does it ({@code IdIndexedCollection} of the test server; mongo-java-server
 * uses an index only for a query of exactly its fields). The engine writes each row by {@code {_id, <partition>}}: without this, every such write
 * scanned the whole target, and a pass over 10,000 rows took minutes (the examined counts of a
 * target show it either way).
 *
 * <p>And one for the client's memory: an {@code aggregate} is answered in batches of its
 * {@code cursor.batchSize}, the rest served by {@code getMore}s, as MongoDB does
 * ({@link AggregateBatches}); the plain backend puts the whole result in the first batch, so the
 * driver of the engine held a whole view's result at once. {@code new CountingBackend(false)} keeps
 * the plain backend's single batch, to measure what that did.
 *
 * <p>Counts are kept per full collection name ({@code db.collection}) for the life of the backend and
 * read as {@link Snapshot}s; the difference of two is what happened between them. The counting
 * costs the server's threads, not the engine's.
 */
final class CountingBackend extends MemoryBackend {

    /** The kind of an aggregate's examinations that passed its leading {@code $match}. */
    static final String PASSED_LEADING_MATCH = "aggregate: passed the leading $match";

    /** The kind of the aggregations that open a change stream. */
    static final String CHANGE_STREAM = "aggregate $changeStream";

    /** The look-ups of an updated document by a change stream ({@code updateLookup}): one document each at MongoDB. */
    static final String LOOKUPS = "change-stream look-ups";

    /** What this server scanned for those look-ups: it finds the document by scanning the collection. */
    static final String LOOKUP_SCANS = "scanned for change-stream look-ups";

    private static final String OPLOG = "local.oplog.rs";

    private static final ThreadLocal<Context> CONTEXT = new ThreadLocal<>();

    private final Map<String, Map<String, LongAdder>> counts = new ConcurrentHashMap<>();

    private final boolean batchedAggregates;

    /** Aggregates answered in batches of their {@code cursor.batchSize}, as MongoDB does. */
    CountingBackend() {
        this(true);
    }

    /**
     * @param batchedAggregates whether an aggregate is answered in batches of its
     *     {@code cursor.batchSize} (MongoDB), or whole in its first batch (the plain backend)
     */
    CountingBackend(boolean batchedAggregates) {
        this.batchedAggregates = batchedAggregates;
    }

    /** What the server is answering on this thread: the command's kind, and an aggregation's leading match. */
    private record Context(String kind, @Nullable String collection, @Nullable Document leadingMatch) {

        Context scanningForLookUp() {
            return new Context(LOOKUP_SCANS, collection, null);
        }
    }

    @Override
    public MemoryDatabase openOrCreateDatabase(String databaseName) {
        return new CountingDatabase(databaseName, getCursorRegistry());
    }

    @Override
    public Document handleMessage(MongoMessage message) {
        Context previous = CONTEXT.get();
        Document command = message.getDocument();
        CONTEXT.set(contextOf(message.getDatabaseName(), command));
        try {
            Document reply = super.handleMessage(message);
            if (batchedAggregates && reply != null && !command.isEmpty()
                    && command.keySet().iterator().next().equalsIgnoreCase("aggregate")) {
                return AggregateBatches.split(command, reply, getCursorRegistry());
            }
            return reply;
        }
        finally {
            if (previous == null) {
                CONTEXT.remove();
            }
            else {
                CONTEXT.set(previous);
            }
        }
    }

    private static Context contextOf(String databaseName, Document command) {
        if (command.isEmpty()) {
            return new Context("unknown", null, null);
        }
        String name = command.keySet().iterator().next();
        if (!name.equals("aggregate") || !(command.get(name) instanceof String collection)
                || !(command.get("pipeline") instanceof List<?> pipeline)) {
            return new Context(name, null, null);
        }
        List<Object> matches = new ArrayList<>();
        for (Object stage : pipeline) {
            if (!(stage instanceof Document document) || document.size() != 1) {
                break;
            }
            if (document.containsKey("$changeStream")) {
                return new Context(CHANGE_STREAM, null, null);
            }
            if (!(document.get("$match") instanceof Document match)) {
                break;
            }
            matches.add(match);
        }
        Document leading = matches.isEmpty() ? null
                : matches.size() == 1 ? (Document) matches.get(0) : new Document("$and", matches);
        return new Context(name, databaseName + "." + collection, leading);
    }

    /** The counts so far. */
    Snapshot snapshot() {
        Map<String, Map<String, Long>> copy = new TreeMap<>();
        counts.forEach((collection, byKind) -> {
            Map<String, Long> kinds = new TreeMap<>();
            byKind.forEach((kind, count) -> kinds.put(kind, count.sum()));
            copy.put(collection, kinds);
        });
        return new Snapshot(copy);
    }

    private Map<String, LongAdder> countsOf(String fullName) {
        return counts.computeIfAbsent(fullName, name -> new ConcurrentHashMap<>());
    }

    /**
     * Documents examined, by full collection name, then by kind.
     * @param byCollection full collection name → kind → documents
     */
    record Snapshot(Map<String, Map<String, Long>> byCollection) {

        static final Snapshot EMPTY = new Snapshot(Map.of());

        /** What was counted after {@code before} and up to this one; kinds counted zero times left out. */
        Snapshot since(Snapshot before) {
            Map<String, Map<String, Long>> delta = new TreeMap<>();
            byCollection.forEach((collection, kinds) -> {
                Map<String, Long> earlier = before.byCollection.getOrDefault(collection, Map.of());
                Map<String, Long> moved = new TreeMap<>();
                kinds.forEach((kind, count) -> {
                    long difference = count - earlier.getOrDefault(kind, 0L);
                    if (difference != 0) {
                        moved.put(kind, difference);
                    }
                });
                if (!moved.isEmpty()) {
                    delta.put(collection, moved);
                }
            });
            return new Snapshot(delta);
        }

        long count(String fullName, String kind) {
            return byCollection.getOrDefault(fullName, Map.of()).getOrDefault(kind, 0L);
        }

        /** The documents one collection examined, by kind, without {@link #PASSED_LEADING_MATCH}. */
        Map<String, Long> examined(String fullName) {
            Map<String, Long> kinds = new TreeMap<>(byCollection.getOrDefault(fullName, Map.of()));
            kinds.remove(PASSED_LEADING_MATCH);
            return kinds;
        }
    }

    /** A database whose collections count. An inner class: its collections are made while its super constructor runs. */
    private final class CountingDatabase extends MemoryDatabase {

        CountingDatabase(String databaseName, CursorRegistry cursorRegistry) {
            super(databaseName, cursorRegistry);
        }

        @Override
        protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
            return new CountingCollection(this, collectionName, options, cursorRegistry,
                    countsOf(getDatabaseName() + "." + collectionName));
        }
    }

    /** A collection that counts the documents its queries examine. */
    private static final class CountingCollection extends IdIndexedCollection {

        private final Map<String, LongAdder> counts;

        private final LongAdder passedLeadingMatch;

        private final boolean oplog;

        CountingCollection(MongoDatabase database, String collectionName, CollectionOptions options,
                CursorRegistry cursorRegistry, Map<String, LongAdder> counts) {
            super(database, collectionName, options, cursorRegistry);
            this.counts = counts;
            this.passedLeadingMatch = counts.computeIfAbsent(PASSED_LEADING_MATCH, kind -> new LongAdder());
            this.oplog = getFullName().equals(OPLOG);
        }

        @Override
        protected boolean documentMatchesQuery(Document document, Document query) {
            Context context = CONTEXT.get();
            counts.computeIfAbsent(context == null ? "internal" : context.kind(), kind -> new LongAdder()).increment();
            return super.documentMatchesQuery(document, query);
        }

        @Override
        public Stream<Document> queryAllAsStream() {
            Context context = CONTEXT.get();
            if (context != null && context.kind().equals("getMore") && !oplog) {
                // A change stream looking up an updated document (the oplog is read the same way, apart).
                counts.computeIfAbsent(LOOKUPS, kind -> new LongAdder()).increment();
                CONTEXT.set(context.scanningForLookUp());
                try {
                    return super.queryAllAsStream();
                }
                finally {
                    CONTEXT.set(context);
                }
            }
            // Examines (and counts) every document at once: the query result is a list.
            Stream<Document> all = super.queryAllAsStream();
            if (context == null || context.leadingMatch() == null || !getFullName().equals(context.collection())) {
                return all;
            }
            Document leading = context.leadingMatch();
            // Counted as the pipeline reads its input, without counting as examined twice.
            return all.peek(document -> {
                if (super.documentMatchesQuery(document, leading)) {
                    passedLeadingMatch.increment();
                }
            });
        }
    }
}
