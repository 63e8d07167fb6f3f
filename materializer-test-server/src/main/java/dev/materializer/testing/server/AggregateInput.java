package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import de.bwaldvogel.mongo.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * The reads of collections the {@code aggregate} a thread is answering makes, and the {@code $match}
 * each leads with. The plain backend reads an aggregation's input as the whole collection
 * ({@code MongoCollection.queryAllAsStream()}, no query), and so does each {@code $lookup} with a
 * {@code pipeline} for its collection, once per document it joins; MongoDB narrows both by an index
 * that serves their leading {@code $match}. The collection asks here when it is read that way
 * ({@link SecondaryIndexedCollection#queryAllAsStream()}) and may narrow the read by the match
 * answered; the pipeline's own {@code $match} still decides on every document that comes through.
 *
 * <ul>
 *   <li>The first such read of the aggregate's own collection is its input: the pipeline's leading
 *       {@code $match} stages, taken together (as MongoDB coalesces them).</li>
 *   <li>Every later read of a collection is a stage's, and is narrowed only when every stage of the
 *       pipeline (sub-pipelines of {@code $facet} and {@code $lookup} included) that may read that
 *       collection whole is a {@code $lookup} whose pipeline leads with one and the same
 *       {@code $match}: then whichever of them reads, the match is its own. A {@code $lookup}
 *       without a pipeline, a {@code $graphLookup} or a {@code $unionWith} of the collection, or two
 *       different matches, and its reads stay whole.</li>
 * </ul>
 *
 * <p>Threads: a thread-local; an aggregate is answered on one of the server's threads, from its
 * command to its result, its stages included.
 */
final class AggregateInput {

    private static final ThreadLocal<Input> CURRENT = new ThreadLocal<>();

    /** An aggregate's reads; {@link #inputRead} once its collection has been read. */
    private static final class Input {

        private final String collection;

        private final @Nullable Document match;

        /** By collection: the one match every stage that may read it whole leads with; empty when not one. */
        private final Map<String, Optional<Document>> stageReads;

        private boolean inputRead;

        Input(String collection, @Nullable Document match, Map<String, Optional<Document>> stageReads) {
            this.collection = collection;
            this.match = match;
            this.stageReads = stageReads;
        }
    }

    private AggregateInput() {
    }

    /**
     * Answers an aggregate with its reads known to this thread.
     * @param database the database's name
     * @param collection the aggregate's collection
     * @param pipeline the pipeline (as the plain backend will run it)
     * @param aggregate the plain answer
     */
    static Document answering(String database, String collection, List<?> pipeline, Supplier<Document> aggregate) {
        if (!pipeline.isEmpty() && pipeline.get(0) instanceof Document first && first.containsKey("$changeStream")) {
            return aggregate.get();
        }
        Document match = leadingMatch(pipeline);
        Map<String, Optional<Document>> stageReads = new HashMap<>();
        collectStageReads(pipeline, database, stageReads);
        if (match == null && stageReads.values().stream().noneMatch(Optional::isPresent)) {
            return aggregate.get();
        }
        Input previous = CURRENT.get();
        CURRENT.set(new Input(database + "." + collection, match, stageReads));
        try {
            return aggregate.get();
        }
        finally {
            if (previous == null) {
                CURRENT.remove();
            }
            else {
                CURRENT.set(previous);
            }
        }
    }

    /**
     * The match that a read of that collection, whole, by the aggregate this thread answers may be
     * narrowed by: the input's for its first read of its own collection, else the one its stages that
     * read the collection share; null when none (read it whole).
     * @param collection the full name of the collection being read whole
     */
    static @Nullable Document claim(String collection) {
        Input input = CURRENT.get();
        if (input == null) {
            return null;
        }
        if (!input.inputRead && input.collection.equals(collection)) {
            input.inputRead = true;
            return input.match;
        }
        Optional<Document> shared = input.stageReads.get(collection);
        return shared == null ? null : shared.orElse(null);
    }

    /** Adds the reads of whole collections that the stages of a pipeline (and of its sub-pipelines) may make. */
    private static void collectStageReads(List<?> pipeline, String database, Map<String, Optional<Document>> reads) {
        for (Object stage : pipeline) {
            if (!(stage instanceof Document document) || document.size() != 1) {
                continue;
            }
            String name = document.keySet().iterator().next();
            Object body = document.get(name);
            switch (name) {
                case "$lookup" -> {
                    if (body instanceof Document lookup && lookup.get("from") instanceof String from) {
                        List<?> sub = lookup.get("pipeline") instanceof List<?> list ? list : null;
                        read(reads, database + "." + from, sub == null ? null : leadingMatch(sub));
                        if (sub != null) {
                            collectStageReads(sub, database, reads);
                        }
                    }
                }
                case "$graphLookup" -> {
                    if (body instanceof Document lookup && lookup.get("from") instanceof String from) {
                        read(reads, database + "." + from, null);
                    }
                }
                case "$unionWith" -> {
                    if (body instanceof String from) {
                        read(reads, database + "." + from, null);
                    }
                    else if (body instanceof Document union && union.get("coll") instanceof String from) {
                        read(reads, database + "." + from, null);
                        if (union.get("pipeline") instanceof List<?> sub) {
                            collectStageReads(sub, database, reads);
                        }
                    }
                }
                case "$facet" -> {
                    if (body instanceof Document facets) {
                        for (Object facet : facets.values()) {
                            if (facet instanceof List<?> sub) {
                                collectStageReads(sub, database, reads);
                            }
                        }
                    }
                }
                default -> {
                    // Reads no other collection
                }
            }
        }
    }

    private static void read(Map<String, Optional<Document>> reads, String collection, @Nullable Document match) {
        reads.merge(collection, Optional.ofNullable(match),
                (one, other) -> one.isPresent() && one.equals(other) ? one : Optional.empty());
    }

    /**
     * The pipeline's leading {@code $match} stages, one or an {@code $and} of them (MongoDB coalesces
     * them); null when it starts otherwise (a change stream reads no collection).
     */
    static @Nullable Document leadingMatch(List<?> pipeline) {
        List<Object> matches = new ArrayList<>();
        for (Object stage : pipeline) {
            if (!(stage instanceof Document document) || document.size() != 1
                    || !(document.get("$match") instanceof Document match)) {
                break;
            }
            matches.add(match);
        }
        if (matches.isEmpty()) {
            return null;
        }
        return matches.size() == 1 ? (Document) matches.get(0) : new Document("$and", matches);
    }
}
