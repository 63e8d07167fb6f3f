package dev.materializer.core.guard;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

import dev.materializer.core.view.ViewFilter;

/**
 * Rewrites a view's pipeline so that, in every collection it reads, it reads only the documents of
 * its partition and, among rows of targets of views, only those of current generations (documents
 * without {@code _viewGen} are source documents and pass). Refuses pipelines that write or read
 * outside the view's sources.
 *
 * <p>Every read gets the scope {@code {<partitionField>: partition, $or: [{_viewGen: {$exists: false}},
 * {_viewGen: {$in: generations}}]}}: the pipeline itself and each {@code $lookup} and
 * {@code $unionWith} sub-pipeline start with it as a {@code $match} (merged into the {@code query} of
 * a leading {@code $geoNear}, which must stay first), and each {@code $graphLookup} restricts its
 * search with it. {@code $facet} sub-pipelines see the scoped input and are checked for their own
 * reads. Refused at any depth: {@code $merge} and {@code $out}, stages that read outside the sources
 * (server and collection metadata, {@code $documents}, change streams), search stages (they must
 * come first, before any scope), reads of collections not among the readable ones or of other
 * databases, and malformed stages.
 *
 * <p>Stateless and thread-safe; the caller decides which readable collection the pipeline runs on.
 */
public final class ScopeGuard {

    private final String partitionField;

    /**
     * Creates a guard.
     * @param partitionField the field that names the partition of a document
     * @throws IllegalArgumentException when the field is blank or starts with {@code $}
     */
    public ScopeGuard(String partitionField) {
        if (partitionField.isBlank() || partitionField.startsWith("$")) {
            throw new IllegalArgumentException(
                    "partitionField must be a field name, not blank and not starting with $, got \"" + partitionField + "\"");
        }
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
        BsonArray guarded = new PipelineScoper(scopeMatch(partition, generations), readable)
                .guardRead(pipeline, "pipeline");
        List<BsonDocument> stages = new ArrayList<>(guarded.size());
        for (BsonValue stage : guarded) {
            stages.add(stage.asDocument());
        }
        return List.copyOf(stages);
    }

    /**
     * The filter every read of the view is scoped by: its partition, and of targets of views only the
     * current generations.
     * @param partition the partition the view is for
     * @param generations the current generations of the views of the partition
     * @return a new filter document
     */
    public BsonDocument scopeMatch(String partition, Collection<ObjectId> generations) {
        BsonArray current = new BsonArray(new ArrayList<>(generations.size()));
        for (ObjectId generation : generations) {
            current.add(new BsonObjectId(generation));
        }
        BsonArray sourceOrCurrent = new BsonArray(List.of(
                new BsonDocument(ViewFilter.GENERATION_FIELD, new BsonDocument("$exists", BsonBoolean.FALSE)),
                new BsonDocument(ViewFilter.GENERATION_FIELD, new BsonDocument("$in", current))));
        return new BsonDocument(partitionField, new BsonString(partition)).append("$or", sourceOrCurrent);
    }
}
