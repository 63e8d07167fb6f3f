package dev.materializer.core;

import java.util.List;
import java.util.Objects;

/**
 * Every row of a view at one generation, as a reader reads them through
 * {@link dev.materializer.core.ViewFilter}; the deltas that follow start from it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param partition the view's partition
 * @param viewId the text of the view's {@code _id}
 * @param generation the generation; 0 when readers read no rows (never run, gone, moved away)
 * @param rows the rows
 * @param reason why a snapshot rather than a delta
 */
public record ViewRowsSnapshot(String partition, String viewId, long generation, List<ViewRow> rows,
        SnapshotReason reason) {

    /** Copies the rows. */
    public ViewRowsSnapshot {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(viewId, "viewId");
        Objects.requireNonNull(reason, "reason");
        rows = List.copyOf(rows);
    }
}
