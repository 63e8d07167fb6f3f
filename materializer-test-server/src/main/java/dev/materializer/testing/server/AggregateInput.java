package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import de.bwaldvogel.mongo.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * The input of the {@code aggregate} a thread is answering: its collection and the pipeline's
 * leading {@code $match} stages, taken together. The plain backend reads an aggregation's input as
 * the whole collection ({@code MongoCollection.queryAllAsStream()}, no query); MongoDB narrows it by
 * an index that serves the leading match. The collection asks here when it is read that way
 * ({@link SecondaryIndexedCollection#queryAllAsStream()}): the first such read of the aggregate's own
 * collection is its input, which the collection may narrow by the match; the pipeline's own
 * {@code $match} still decides on every document that comes through. Later reads (a stage's own read
 * of a collection) are whole, as before.
 *
 * <p>Threads: a thread-local; an aggregate is answered on one of the server's threads, from its
 * command to its result.
 */
final class AggregateInput {

    private static final ThreadLocal<Input> CURRENT = new ThreadLocal<>();

    /** An aggregate's input; {@link #read} once its collection has been read. */
    private static final class Input {

        private final String collection;

        private final Document match;

        private boolean read;

        Input(String collection, Document match) {
            this.collection = collection;
            this.match = match;
        }
    }

    private AggregateInput() {
    }

    /**
     * Answers an aggregate with its input known to this thread.
     * @param collection the full name of the aggregate's collection
     * @param pipeline the pipeline (as the plain backend will run it)
     * @param aggregate the plain answer
     */
    static Document answering(String collection, List<?> pipeline, Supplier<Document> aggregate) {
        Document match = leadingMatch(pipeline);
        if (match == null) {
            return aggregate.get();
        }
        Input previous = CURRENT.get();
        CURRENT.set(new Input(collection, match));
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
     * The leading match of the aggregate this thread answers, if it reads that collection and has not
     * read it yet; the read it is asked for is then its input.
     * @param collection the full name of the collection being read whole
     */
    static @Nullable Document claim(String collection) {
        Input input = CURRENT.get();
        if (input == null || input.read || !input.collection.equals(collection)) {
            return null;
        }
        input.read = true;
        return input.match;
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
