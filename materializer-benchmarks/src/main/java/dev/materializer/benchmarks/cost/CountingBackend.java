package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import dev.materializer.testing.server.InProcessBackend;
import dev.materializer.testing.server.InProcessCollection;
import org.jspecify.annotations.Nullable;

/**
 * The in-process test server's backend ({@link InProcessBackend}: what the project's tests, the
 * sample and the scale report run on), counting the documents each collection examines, by the
 * command that made it examine them. mongo-java-server has no explain statistics; this is the
 * seam it has: every document a query of a collection looks at (a scan, or the positions an index
 * gives) goes through {@code AbstractMongoCollection.documentMatchesQuery}, and an aggregation reads
 * its input through {@code MongoCollection.queryAllAsStream()}, which tests each document it passes
 * on against an empty query: the whole collection, or the documents a non-unique index gives for the
 * pipeline's leading {@code $match}. So:
 *
 * <ul>
 *   <li><b>examined</b>: the calls of {@code documentMatchesQuery} on the collection, by the name of
 *       the command the server was answering ({@code aggregate}, {@code find}, {@code update},
 *       {@code delete}...; an aggregation that opens a change stream is {@code aggregate $changeStream}).
 *       The server uses the {@code _id} index and, since issue 19, the non-unique indexes made with
 *       {@code createIndexes} (the engine's on targets and on the views collection; the report's own
 *       where a scenario makes one, as the burst's {@code {_part: 1}} on {@code orders}), as MongoDB
 *       would: a query or an aggregate whose leading {@code $match} an index serves examines the
 *       documents the index gives (a superset of what it matches), any other examines every document
 *       of the collection. A {@code getMore} of a change stream reads the server's change log, not a
 *       collection; what it examines in a collection is the look-up of an updated document
 *       ({@code updateLookup}), by {@code _id} as at MongoDB: counted as {@link #LOOKUPS}.</li>
 *   <li><b>passed the leading $match</b>: of the documents an {@code aggregate} reads from the
 *       collection, those that pass the pipeline's leading {@code $match} stages (all of them, taken
 *       together, as MongoDB coalesces adjacent {@code $match} stages), counted as the pipeline reads
 *       them (of those examined: the index's candidates, or the whole collection). It is what a server
 *       examines at best for the pipeline: with an index that covers that match exactly. None when the
 *       pipeline does not start with a {@code $match}. Only those go on to the
 *       pipeline's stages (its own {@code $match}, the same matcher, then tests the few that passed:
 *       the same result), so the counting does not test every document twice.</li>
 * </ul>
 *
 * <p>One difference from the test server, for the client's memory: an {@code aggregate} is answered
 * in batches of its {@code cursor.batchSize}, the rest served by {@code getMore}s, as MongoDB does
 * ({@link AggregateBatches}); mongo-java-server puts the whole result in the first batch, so the
 * driver of the engine held a whole view's result at once. {@code new CountingBackend(false)} keeps
 * the single batch, to measure what that did.
 *
 * <p>Counts are kept per full collection name ({@code db.collection}) for the life of the backend and
 * read as {@link Snapshot}s; the difference of two is what happened between them. The counting
 * costs the server's threads, not the engine's. Not counted: the {@code system.namespaces}
 * collection of each database, which the backend opens before its collection hook is set.
 */
final class CountingBackend extends InProcessBackend {

    /** The kind of an aggregate's examinations that passed its leading {@code $match}. */
    static final String PASSED_LEADING_MATCH = "aggregate: passed the leading $match";

    /** The kind of the aggregations that open a change stream. */
    static final String CHANGE_STREAM = "aggregate $changeStream";

    /** The documents examined to look up an updated document for a change stream ({@code updateLookup}), by {@code _id}. */
    static final String LOOKUPS = "change-stream look-ups";

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

    /**
     * What the server is answering on this thread: the command's kind, and an aggregation's leading
     * match; whether the aggregation's input may be filtered by that match before its stages (no
     * {@code let} variables, which the stages see and this match would not), and whether its input
     * was read already (a later read of the collection is a stage's: {@code $unionWith}, say).
     */
    private record Context(String kind, @Nullable String collection, @Nullable Document leadingMatch, boolean filters,
            AtomicBoolean inputRead) {

        Context(String kind, @Nullable String collection, @Nullable Document leadingMatch, boolean filters) {
            this(kind, collection, leadingMatch, filters, new AtomicBoolean());
        }

        Context(String kind) {
            this(kind, null, null, false);
        }
    }

    @Override
    protected InProcessCollection openCollection(MongoDatabase database, String collectionName,
            CollectionOptions options, CursorRegistry cursorRegistry) {
        return new CountingCollection(database, collectionName, options, cursorRegistry,
                countsOf(database.getDatabaseName() + "." + collectionName));
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
            return new Context("unknown");
        }
        String name = command.keySet().iterator().next();
        if (!name.equals("aggregate") || !(command.get(name) instanceof String collection)
                || !(command.get("pipeline") instanceof List<?> pipeline)) {
            return new Context(name);
        }
        List<Object> matches = new ArrayList<>();
        for (Object stage : pipeline) {
            if (!(stage instanceof Document document) || document.size() != 1) {
                break;
            }
            if (document.containsKey("$changeStream")) {
                return new Context(CHANGE_STREAM);
            }
            if (!(document.get("$match") instanceof Document match)) {
                break;
            }
            matches.add(match);
        }
        Document leading = matches.isEmpty() ? null
                : matches.size() == 1 ? (Document) matches.get(0) : new Document("$and", matches);
        return new Context(name, databaseName + "." + collection, leading, !command.containsKey("let"));
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

    /** A collection that counts the documents its queries examine. */
    private static final class CountingCollection extends InProcessCollection {

        private final Map<String, LongAdder> counts;

        private final LongAdder passedLeadingMatch;

        CountingCollection(MongoDatabase database, String collectionName, CollectionOptions options,
                CursorRegistry cursorRegistry, Map<String, LongAdder> counts) {
            super(database, collectionName, options, cursorRegistry);
            this.counts = counts;
            this.passedLeadingMatch = counts.computeIfAbsent(PASSED_LEADING_MATCH, kind -> new LongAdder());
        }

        @Override
        protected boolean documentMatchesQuery(Document document, Document query) {
            counts.computeIfAbsent(kindOf(CONTEXT.get()), kind -> new LongAdder()).increment();
            return super.documentMatchesQuery(document, query);
        }

        /**
         * A getMore examines a collection only to look up an updated document for a change stream: a
         * find's or an aggregate's getMore serves a result computed before, and a change stream reads the log.
         */
        private static String kindOf(@Nullable Context context) {
            if (context == null) {
                return "internal";
            }
            return context.kind().equals("getMore") ? LOOKUPS : context.kind();
        }

        @Override
        public Stream<Document> queryAllAsStream() {
            Context context = CONTEXT.get();
            // Examines (and counts) every document at once: the query result is a list.
            Stream<Document> all = super.queryAllAsStream();
            if (context == null || context.leadingMatch() == null || !getFullName().equals(context.collection())
                    || context.inputRead().getAndSet(true)) {
                return all;
            }
            Document leading = context.leadingMatch();
            if (!context.filters()) {
                return all.peek(document -> {
                    if (super.documentMatchesQuery(document, leading)) {
                        passedLeadingMatch.increment();
                    }
                });
            }
            // Counted as the pipeline reads its input, without counting as examined twice. Only what
            // passes goes on: the pipeline's own $match stages (the same matcher) then test the few that
            // passed, not every document again, and give the same result. Letting every document on
            // made the report's counting cost as much as the server's own scan (a third of the server's
            // time in the burst across 1,000 tenants, whose $or of 50 branches it evaluated twice).
            return all.filter(document -> {
                boolean passed = super.documentMatchesQuery(document, leading);
                if (passed) {
                    passedLeadingMatch.increment();
                }
                return passed;
            });
        }
    }
}
