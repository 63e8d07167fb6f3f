package dev.materializer.core.view;

import java.util.AbstractList;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.stream.Collectors;

import dev.materializer.core.ViewKey;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A view as its document defines it, checked and immutable: an aggregation pipeline over source
 * collections, for one partition, whose result is kept in a target collection. Built by
 * {@link ViewDefinitionParser}.
 *
 * @param id the {@code _id} of the view document
 * @param partition the partition (tenant) the view is for
 * @param collections the sources; the pipeline runs on the first and reads the others through
 *     {@code $lookup}, {@code $unionWith} or {@code $graphLookup}
 * @param pipeline the stages of the pipeline, without {@code $merge} or {@code $out}; copied once,
 *     then shared by the views of other partitions with the same definition: read them, never
 *     change them
 * @param targetCollection the collection that holds the result's rows
 * @param sourceFields per source, the field paths the pipeline reads; a source not named reads
 *     every field
 * @param fingerprint a hash of what defines the result (sources, pipeline, target, source fields,
 *     and the incremental declaration when there is one), so a restart can tell a changed definition
 *     from an unchanged one
 * @param incremental what the document's {@code incremental} field says; {@link IncrementalDeclaration#AUTO}
 *     when it has none
 */
public record ViewDefinition(BsonValue id, String partition, List<String> collections, List<BsonDocument> pipeline,
        String targetCollection, Map<String, List<String>> sourceFields, String fingerprint,
        IncrementalDeclaration incremental) {

    /**
     * Copies the collections and the stages (which are mutable) so the definition stays immutable;
     * stages of another definition are taken as they are, so identical definitions share them.
     */
    public ViewDefinition {
        collections = List.copyOf(collections);
        pipeline = Stages.of(pipeline);
        sourceFields = sourceFields.entrySet().stream()
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, entry -> List.copyOf(entry.getValue())));
    }

    /**
     * A definition without an incremental declaration ({@link IncrementalDeclaration#AUTO}).
     * @param id the {@code _id} of the view document
     * @param partition the partition the view is for
     * @param collections the sources
     * @param pipeline the stages of the pipeline
     * @param targetCollection the collection that holds the result's rows
     * @param sourceFields per source, the field paths the pipeline reads
     * @param fingerprint a hash of what defines the result
     */
    public ViewDefinition(BsonValue id, String partition, List<String> collections, List<BsonDocument> pipeline,
            String targetCollection, Map<String, List<String>> sourceFields, String fingerprint) {
        this(id, partition, collections, pipeline, targetCollection, sourceFields, fingerprint,
                IncrementalDeclaration.AUTO);
    }

    /**
     * The same definition for another view: its own id and partition, this one's parsed parts
     * (sources, stages, target, source fields, fingerprint, incremental declaration), shared rather than copied.
     * @param otherId the {@code _id} of the other view
     * @param otherPartition its partition
     * @return the definition of the other view
     */
    public ViewDefinition sharedWith(BsonValue otherId, String otherPartition) {
        return new ViewDefinition(otherId, otherPartition, collections, pipeline, targetCollection, sourceFields,
                fingerprint, incremental);
    }

    /** The key of the view: its partition and id. */
    public ViewKey key() {
        return ViewKey.of(partition, id);
    }

    /** The collection the pipeline runs on: the first source. */
    public String primarySource() {
        return collections.get(0);
    }

    /**
     * Whether the view reads the collection.
     * @param collection a collection name
     * @return true when it is one of the sources
     */
    public boolean reads(String collection) {
        return collections.contains(collection);
    }

    /** The stages of a definition: copied once, then passed between definitions as they are. */
    private static final class Stages extends AbstractList<BsonDocument> implements RandomAccess {

        private final BsonDocument[] stages;

        private Stages(BsonDocument[] stages) {
            this.stages = stages;
        }

        static List<BsonDocument> of(List<BsonDocument> pipeline) {
            if (pipeline instanceof Stages shared) {
                return shared;
            }
            return new Stages(pipeline.stream().map(BsonDocument::clone).toArray(BsonDocument[]::new));
        }

        @Override
        public BsonDocument get(int index) {
            return stages[index];
        }

        @Override
        public int size() {
            return stages.length;
        }
    }
}
