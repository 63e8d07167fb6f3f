package dev.materializer.core.view;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

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
 * @param pipeline the stages of the pipeline, without {@code $merge} or {@code $out}
 * @param targetCollection the collection that holds the result's rows
 * @param sourceFields per source, the field paths the pipeline reads; a source not named reads
 *     every field
 * @param fingerprint a hash of what defines the result (sources, pipeline, target, source fields),
 *     so a restart can tell a changed definition from an unchanged one
 */
public record ViewDefinition(BsonValue id, String partition, List<String> collections, List<BsonDocument> pipeline,
        String targetCollection, Map<String, List<String>> sourceFields, String fingerprint) {

    /** Copies the collections (and the stages, which are mutable) so the definition stays immutable. */
    public ViewDefinition {
        collections = List.copyOf(collections);
        pipeline = pipeline.stream().map(BsonDocument::clone).toList();
        sourceFields = sourceFields.entrySet().stream()
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, entry -> List.copyOf(entry.getValue())));
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
}
