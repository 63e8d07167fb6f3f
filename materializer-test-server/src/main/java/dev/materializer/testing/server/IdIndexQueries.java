package dev.materializer.testing.server;

import java.util.List;

import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * The {@code _id} index's answer to a query that names {@code _id} beside other fields, as MongoDB
 * plans it: the index narrows to the documents of that {@code _id}, the whole query then decides.
 * mongo-java-server uses an index only for a query of exactly its fields, so it scans for these.
 * Public for the benchmarks' counting backend, which is built on the plain one.
 */
public final class IdIndexQueries {

    private IdIndexQueries() {
    }

    /**
     * The positions of the documents the {@code _id} part of the query names, to be matched against
     * the whole query; null when the query does not name {@code _id} with other fields or no index
     * serves its {@code _id} condition (the caller then queries as before).
     *
     * @param query the query
     * @param indexes the collection's indexes
     */
    public static <P> @Nullable Iterable<P> candidates(Document query, List<Index<P>> indexes) {
        if (query.size() < 2 || !query.containsKey("_id")) {
            return null;
        }
        Document byId = new Document("_id", query.get("_id"));
        for (Index<P> index : indexes) {
            if (index.canHandle(byId)) {
                return index.getPositions(byId);
            }
        }
        return null;
    }
}
