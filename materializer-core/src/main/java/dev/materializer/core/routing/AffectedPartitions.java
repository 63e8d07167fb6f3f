package dev.materializer.core.routing;

import java.util.Set;

/**
 * The partitions a change can affect: a known set, or every partition of the source when the
 * change does not tell.
 *
 * @param all whether every partition of the source is affected
 * @param partitions the affected partitions, when not all
 */
public record AffectedPartitions(boolean all, Set<String> partitions) {

    /** Every partition of the source. */
    public static final AffectedPartitions ALL = new AffectedPartitions(true, Set.of());

    /** No partition: the change cannot affect any view. */
    public static final AffectedPartitions NONE = new AffectedPartitions(false, Set.of());

    /** Copies the set so the record stays immutable. */
    public AffectedPartitions {
        partitions = Set.copyOf(partitions);
    }

    /**
     * A known set of partitions.
     * @param partitions the partitions
     * @return the value
     */
    public static AffectedPartitions of(Set<String> partitions) {
        return partitions.isEmpty() ? NONE : new AffectedPartitions(false, partitions);
    }

    /**
     * Whether the partition is affected.
     * @param partition a partition
     * @return true when all are, or it is one of them
     */
    public boolean includes(String partition) {
        return all || partitions.contains(partition);
    }
}
