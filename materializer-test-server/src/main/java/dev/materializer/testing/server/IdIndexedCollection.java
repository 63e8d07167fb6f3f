package dev.materializer.testing.server;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.Document;

/**
 * A collection of the in-memory backend that answers a query naming {@code _id} beside other fields
 * as MongoDB plans it: the {@code _id} index narrows to the documents of that {@code _id}, the whole
 * query then decides. mongo-java-server uses an index only for a query of exactly its fields, so it
 * scanned the collection for each of the engine's {@code {_id, _part}} writes.
 *
 * <p>Threads: as the plain collection (its queries run under the collection's lock).
 */
class IdIndexedCollection extends MemoryCollection {

    IdIndexedCollection(MongoDatabase database, String collectionName, CollectionOptions options,
            CursorRegistry cursorRegistry) {
        super(database, collectionName, options, cursorRegistry);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit,
            int batchSize, Document fieldSelector) {
        if (query.size() > 1 && query.containsKey("_id")) {
            Document byId = new Document("_id", query.get("_id"));
            for (Index<Integer> index : getIndexes()) {
                if (index.canHandle(byId)) {
                    return matchDocuments(query, index.getPositions(byId), orderBy, numberToSkip, limit, batchSize,
                            fieldSelector);
                }
            }
        }
        return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }
}
