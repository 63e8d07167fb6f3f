package dev.materializer.core.routing;

import java.util.Map;

/**
 * Tells which partitions a change of a source can affect: from the post-image, from the pre-image
 * (both when a document moves between partitions), for storage sources from the id prefix through
 * their mapping, and every partition of the source when none of these tells.
 *
 * <p>Immutable and thread-safe; runs for every event, so it allocates little.
 */
public final class PartitionRouter {

    /** The separator between the storage partition and the rest of an id in a storage source. */
    public static final char STORAGE_SEPARATOR = '\u001F';

    private final String partitionField;

    private final Map<String, PartitionMapping> storageSources;

    /**
     * Creates a router.
     * @param partitionField the field that names the partition of a document
     * @param storageSources the sources whose ids carry their storage partition, with the mapping
     *     to the partition of the views
     */
    public PartitionRouter(String partitionField, Map<String, PartitionMapping> storageSources) {
        this.partitionField = partitionField;
        this.storageSources = Map.copyOf(storageSources);
    }

    /**
     * The partitions a change can affect.
     * @param source the collection the change happened in
     * @param change the change
     * @return the affected partitions
     */
    public AffectedPartitions route(String source, SourceChange change) {
        throw new UnsupportedOperationException("PartitionRouter.route: not implemented yet");
    }
}
