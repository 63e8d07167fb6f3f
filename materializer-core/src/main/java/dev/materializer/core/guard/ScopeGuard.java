package dev.materializer.core.guard;

import java.util.Collection;
import java.util.List;

import org.bson.BsonDocument;
import org.bson.types.ObjectId;

/**
 * Rewrites a view's pipeline so that, in every collection it reads, it reads only the documents of
 * its partition and, among rows of targets of views, only those of current generations (documents
 * without {@code _viewGen} are source documents and pass). Refuses pipelines that write or read
 * outside the view's sources.
 *
 * <p>Stateless and thread-safe.
 */
public final class ScopeGuard {

    private final String partitionField;

    /**
     * Creates a guard.
     * @param partitionField the field that names the partition of a document
     */
    public ScopeGuard(String partitionField) {
        this.partitionField = partitionField;
    }

    /**
     * The guarded pipeline.
     * @param pipeline the view's stages
     * @param partition the partition the view is for
     * @param readable the collections the view may read (its sources)
     * @param generations the current generations of the views of the partition
     * @return a new pipeline, scoped at every read
     * @throws ScopeViolationException when the pipeline writes or reads outside its sources
     */
    public List<BsonDocument> scope(List<BsonDocument> pipeline, String partition, Collection<String> readable,
            Collection<ObjectId> generations) throws ScopeViolationException {
        throw new UnsupportedOperationException("ScopeGuard.scope: not implemented yet");
    }
}
