package dev.materializer.core;

import org.jspecify.annotations.Nullable;

/**
 * Maps the storage partition at the front of a document id ({@code <storagePartition>\u001F…})
 * to the partition of the views, for sources declared as storage sources.
 */
@FunctionalInterface
public interface PartitionMapping {

    /** The partition of the views is the partition of the storage. */
    PartitionMapping IDENTITY = storagePartition -> storagePartition;

    /**
     * The partition of the views for a storage partition.
     * @param storagePartition the text before the separator in the id
     * @return the partition of the views, or null when unknown (the change then reaches every
     *     partition of the source)
     */
    @Nullable String partitionOf(String storagePartition);
}
