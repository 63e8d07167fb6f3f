package dev.materializer.core.guard;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

import dev.materializer.core.Generation;
import dev.materializer.core.ViewFilter;

/**
 * Rewrites a view's pipeline so that, in every collection it reads, it reads only the documents of
 * its partition and, in the target of another view of the partition, only the rows of that view's
 * current generation. Refuses pipelines that write or read outside the view's sources.
 *
 * <p>Every read gets the scope of its collection: {@code {<partitionField>: partition}} and, for a
 * collection that is the target of a view of the partition, either a document without the engine's
 * row fields (a source document) or a row of the view's current generation (the terms of
 * {@link ViewFilter#rowsOf}); in any other collection only documents without those fields. The
 * pipeline itself and each {@code $lookup} and {@code $unionWith} sub-pipeline start with the scope
 * of the collection they read as a {@code $match} (merged into the {@code query} of a leading
 * {@code $geoNear}, which must stay first), and each {@code $graphLookup} restricts its search with
 * it. {@code $facet} sub-pipelines see the scoped input and are checked for their own reads.
 * Refused at any depth: {@code $merge} and {@code $out}, stages that read outside the sources
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
     * @param collection the collection the pipeline runs on
     * @param generations per target of a view of the partition, that view's current generation
     *     (null before its first run)
     * @return a new pipeline, scoped at every read
     * @throws ScopeViolationException when the pipeline writes or reads outside its sources
     */
    public List<BsonDocument> scope(List<BsonDocument> pipeline, String partition, Collection<String> readable,
            String collection, Map<String, @Nullable Generation> generations) throws ScopeViolationException {
        BsonArray guarded = new PipelineScoper(read -> scopeMatch(partition, read, generations), readable)
                .guardRead(pipeline, collection, "pipeline");
        List<BsonDocument> stages = new ArrayList<>(guarded.size());
        for (BsonValue stage : guarded) {
            stages.add(stage.asDocument());
        }
        return List.copyOf(stages);
    }

    /**
     * The filter every read of a collection is scoped by: the partition, and in the target of a
     * view of the partition only the rows of its current generation.
     * @param partition the partition the view is for
     * @param collection the collection read
     * @param generations per target of a view of the partition, its current generation
     * @return a new filter document
     */
    public BsonDocument scopeMatch(String partition, String collection, Map<String, @Nullable Generation> generations) {
        BsonDocument scope = new BsonDocument(partitionField, new BsonString(partition));
        BsonDocument sourceDocument = new BsonDocument(ViewFilter.TO_FIELD, new BsonDocument("$exists", BsonBoolean.FALSE))
            .append(ViewFilter.GENERATION_FIELD, new BsonDocument("$exists", BsonBoolean.FALSE));
        if (!generations.containsKey(collection)) {
            scope.putAll(sourceDocument);
            return scope;
        }
        return scope.append("$or", new BsonArray(List.of(sourceDocument,
                ViewFilter.rowsOf(generations.get(collection)))));
    }
}
