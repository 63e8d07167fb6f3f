package dev.materializer.testing.server;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;

/**
 * A collection that keeps its non-unique indexes ({@link SecondaryIndex}) and examines only the
 * documents they give: for a query (find, count, distinct, and the selectors of update, delete and
 * findAndModify) whose top narrows by an index ({@link Narrowing}), and for the input of an aggregate,
 * or a read of a {@code $lookup}'s pipeline, whose leading {@code $match} does ({@link AggregateInput}).
 * The whole query, or the pipeline's own {@code $match}, still decides on each of those documents, in
 * the order of a scan: the answer is the scan's. A query that names {@code _id} in a way the {@code _id} index serves is left to it
 * ({@link IdIndexedCollection}).
 *
 * <p>The indexes are kept current where the collection knows a document's position: when it adds
 * one, changes one in place (update, replace, findAndModify) and removes one. A secondary index is
 * filed with the collection's documents when it is added; dropping it (or the collection) lets it go.
 *
 * <p>Threads: everything here runs under the collection's lock, as its writes and queries do: the
 * plain collection does not synchronize adding and dropping an index, counting, or reading an
 * aggregation's input, so this one does.
 */
class SecondaryIndexedCollection extends IdIndexedCollection {

    /** The secondary indexes in the collection's list, in its order. */
    private final List<SecondaryIndex> secondary = new ArrayList<>();

    SecondaryIndexedCollection(MongoDatabase database, String collectionName, CollectionOptions options,
            CursorRegistry cursorRegistry) {
        super(database, collectionName, options, cursorRegistry);
    }

    @Override
    public synchronized void addIndex(Index<Integer> index) {
        super.addIndex(index);
        // The plain collection keeps an index of the same name it had instead: then this one is not used
        if (index instanceof SecondaryIndex added && getIndexes().contains(added) && !secondary.contains(added)) {
            added.clear();
            streamAllDocumentsWithPosition().forEach(kept -> added.file(kept.getPosition(), kept.getDocument()));
            secondary.add(added);
        }
    }

    @Override
    public synchronized void dropIndex(String indexName) {
        super.dropIndex(indexName);
        secondary.removeIf(index -> index.getName().equals(indexName));
    }

    @Override
    protected Integer addDocumentInternal(Document document) {
        Integer position = super.addDocumentInternal(document);
        for (SecondaryIndex index : secondary) {
            index.file(position, document);
        }
        return position;
    }

    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
        super.handleUpdate(position, oldDocument, newDocument);
        for (SecondaryIndex index : secondary) {
            index.unfile(position);
            index.file(position, newDocument);
        }
    }

    @Override
    protected void removeDocument(Integer position) {
        for (SecondaryIndex index : secondary) {
            index.unfile(position);
        }
        super.removeDocument(position);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit,
            int batchSize, Document fieldSelector) {
        synchronized (this) {
            if (!secondary.isEmpty() && !servedById(query)) {
                int[] positions = Narrowing.positions(query, secondary);
                if (positions != null) {
                    return matchDocuments(query, inOrder(positions, isNaturalDescending(orderBy)), orderBy,
                            numberToSkip, limit, batchSize, fieldSelector);
                }
            }
            return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
        }
    }

    @Override
    public synchronized int count(Document query, int skip, int limit) {
        return super.count(query, skip, limit);
    }

    /**
     * The whole collection, as the plain backend reads an aggregation's input (and a {@code $lookup}'s
     * pipeline its collection); narrowed by the leading {@code $match} that the aggregate this thread
     * answers gives for this read ({@link AggregateInput#claim}). Each document passed on is examined
     * (the collection's {@code documentMatchesQuery}, with no query), as each of a scan is.
     */
    @Override
    public Stream<Document> queryAllAsStream() {
        Document leadingMatch = AggregateInput.claim(getFullName());
        if (leadingMatch != null) {
            synchronized (this) {
                int[] positions = Narrowing.positions(leadingMatch, secondary);
                if (positions != null) {
                    QueryResult input = matchDocuments(new Document(), inOrder(positions, false), null, 0, 0, 0, null);
                    return StreamSupport.stream(input.spliterator(), false);
                }
            }
        }
        return super.queryAllAsStream();
    }

    /** Whether the {@code _id} index serves the query (alone, or with other fields: {@link IdIndexedCollection}). */
    private boolean servedById(Document query) {
        if (!query.containsKey("_id")) {
            return false;
        }
        Document byId = new Document("_id", query.get("_id"));
        for (Index<Integer> index : getIndexes()) {
            if (index.canHandle(byId)) {
                return true;
            }
        }
        return false;
    }

    /** The positions as a list, ascending (the order of a scan) or descending ({@code $natural: -1}). */
    private static List<Integer> inOrder(int[] positions, boolean descending) {
        return new AbstractList<>() {

            @Override
            public Integer get(int index) {
                return positions[descending ? positions.length - 1 - index : index];
            }

            @Override
            public int size() {
                return positions.length;
            }
        };
    }
}
