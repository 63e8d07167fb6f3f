package dev.materializer.core.routing;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.materializer.core.PartitionMapping;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells which partitions a change of a source can affect: from the post-image, from the pre-image
 * (both when a document moves between partitions), for storage sources from the id prefix through
 * their mapping, and every partition of the source when none of these tells.
 *
 * <p>The partition of a document is the value of its (top-level) partition field when that is a
 * non-empty string; a document without one belongs to no partition.
 *
 * <ul>
 * <li>Insert: the partition of the post-image.</li>
 * <li>Update, replace: the partitions of the post-image and the pre-image. Without a pre-image,
 *     when the change may have moved the document (a replace; an update without an update
 *     description or one that touches the partition field), the old partition comes from the id
 *     of a storage source, or else every partition is affected. Without a post-image either (the
 *     document was deleted since), only the id of a storage source tells.</li>
 * <li>Delete: the partition of the pre-image, else from the id of a storage source, else all.</li>
 * <li>Drop, rename, drop of the database, invalidate and any other event: all.</li>
 * </ul>
 *
 * <p>Events of the row versions the engine writes to a target another view reads go only to their
 * own partition, or nowhere (see {@link RowVersionEvents}).
 *
 * <p>Immutable and thread-safe; runs for every event, so it allocates little.
 */
public final class PartitionRouter {

    /** The separator between the storage partition and the rest of an id in a storage source. */
    public static final char STORAGE_SEPARATOR = '\u001F';

    private static final Logger LOG = LoggerFactory.getLogger(PartitionRouter.class);

    private final String partitionField;

    /** {@code partitionField + "."}: an updated key under the partition field. */
    private final String partitionFieldPrefix;

    private final Map<String, PartitionMapping> storageSources;

    private final RowVersionEvents versions;

    /**
     * Creates a router.
     * @param partitionField the field that names the partition of a document
     * @param storageSources the sources whose ids carry their storage partition, with the mapping
     *     to the partition of the views
     * @throws IllegalArgumentException when the partition field is blank
     */
    public PartitionRouter(String partitionField, Map<String, PartitionMapping> storageSources) {
        if (partitionField.isBlank()) {
            throw new IllegalArgumentException("partitionField must be a non-blank field name, got '"
                + partitionField + "'");
        }
        this.partitionField = partitionField;
        this.partitionFieldPrefix = partitionField + ".";
        this.storageSources = Map.copyOf(storageSources);
        this.versions = new RowVersionEvents(partitionField);
    }

    /**
     * The partitions a change can affect.
     * @param source the collection the change happened in
     * @param change the change
     * @return the affected partitions
     */
    public AffectedPartitions route(String source, SourceChange change) {
        AffectedPartitions ofVersions = versions.route(change);
        if (ofVersions != null) {
            return ofVersions;
        }
        switch (change.operation()) {
            case INSERT:
                return routeInsert(source, change);
            case UPDATE:
            case REPLACE:
                return routeUpdateOrReplace(source, change);
            case DELETE:
                return routeDelete(source, change);
            default:
                // A drop, rename, invalidate or unknown event says nothing of partitions.
                return AffectedPartitions.ALL;
        }
    }

    private AffectedPartitions routeInsert(String source, SourceChange change) {
        BsonDocument inserted = change.fullDocument();
        if (inserted == null) {
            // An insert always carries its document; if one does not, the document is unknown.
            return fromStorageIdOrAll(source, change.documentId());
        }
        return single(partitionOf(inserted));
    }

    private AffectedPartitions routeUpdateOrReplace(String source, SourceChange change) {
        BsonDocument after = change.fullDocument();
        BsonDocument before = change.fullDocumentBeforeChange();
        if (before != null) {
            return union(partitionOf(after), partitionOf(before));
        }
        if (after == null) {
            // Deleted since the change (updateLookup found nothing): no partition is known.
            return fromStorageIdOrAll(source, change.documentId());
        }
        Set<String> now = partitionOf(after);
        if (!mayHaveMoved(change)) {
            return single(now);
        }
        String was = storagePartition(source, change.documentId());
        return was == null ? AffectedPartitions.ALL : union(now, Set.of(was));
    }

    private AffectedPartitions routeDelete(String source, SourceChange change) {
        BsonDocument before = change.fullDocumentBeforeChange();
        if (before != null) {
            return single(partitionOf(before));
        }
        return fromStorageIdOrAll(source, change.documentId());
    }

    /** Whether the change may have moved the document out of another partition. */
    private boolean mayHaveMoved(SourceChange change) {
        if (change.operation() == SourceChange.Operation.REPLACE) {
            return true;
        }
        UpdatedFields update = change.update();
        // Without an update description, the update may have changed the partition field.
        return update == null || touchesPartitionField(update.updated())
            || touchesPartitionField(update.removed()) || touchesPartitionField(update.truncatedArrays());
    }

    private boolean touchesPartitionField(List<String> keys) {
        for (int i = 0, n = keys.size(); i < n; i++) {
            String key = keys.get(i);
            if (key.equals(partitionField) || key.startsWith(partitionFieldPrefix)) {
                return true;
            }
        }
        return false;
    }

    private AffectedPartitions fromStorageIdOrAll(String source, @Nullable BsonValue documentId) {
        String partition = storagePartition(source, documentId);
        return partition == null ? AffectedPartitions.ALL : single(Set.of(partition));
    }

    /**
     * The partition of the views named by the id of a document of a storage source
     * ({@code <storagePartition>\u001F…}), or null when the source is not one, the id does not
     * carry a storage partition, or the mapping does not know it.
     */
    private @Nullable String storagePartition(String source, @Nullable BsonValue documentId) {
        PartitionMapping mapping = storageSources.get(source);
        if (mapping == null || !(documentId instanceof BsonString)) {
            return null;
        }
        String id = ((BsonString) documentId).getValue();
        int separator = id.indexOf(STORAGE_SEPARATOR);
        if (separator <= 0) {
            return null;
        }
        String storagePartition = id.substring(0, separator);
        String partition;
        try {
            partition = mapping.partitionOf(storagePartition);
        } catch (RuntimeException e) {
            // A failing mapping must not lose the change: the caller then reaches every partition.
            LOG.debug("the partition mapping of storage source {} failed for storage partition '{}': {}",
                source, storagePartition, e.toString());
            return null;
        }
        return partition == null || partition.isEmpty() ? null : partition;
    }

    /**
     * The partitions a document is in, as the views' scope reads it: a string is one partition; an
     * array is every string in it, since a query for {@code {_part: "acme"}} matches an array
     * holding "acme"; any other value is in no partition.
     */
    private Set<String> partitionOf(@Nullable BsonDocument document) {
        if (document == null) {
            return Set.of();
        }
        BsonValue value = document.get(partitionField);
        if (value instanceof BsonString text) {
            return text.getValue().isEmpty() ? Set.of() : Set.of(text.getValue());
        }
        if (value instanceof BsonArray array) {
            Set<String> partitions = new HashSet<>();
            for (BsonValue element : array) {
                if (element instanceof BsonString text && !text.getValue().isEmpty()) {
                    partitions.add(text.getValue());
                }
            }
            return partitions;
        }
        return Set.of();
    }

    private static AffectedPartitions single(Set<String> partitions) {
        return AffectedPartitions.of(partitions);
    }

    private static AffectedPartitions union(Set<String> first, Set<String> second) {
        if (second.isEmpty() || first.equals(second)) {
            return single(first);
        }
        if (first.isEmpty()) {
            return single(second);
        }
        Set<String> both = new HashSet<>(first);
        both.addAll(second);
        return AffectedPartitions.of(both);
    }
}
