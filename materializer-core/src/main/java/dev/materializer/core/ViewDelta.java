package dev.materializer.core;

import java.util.List;
import java.util.Objects;

/**
 * What one flip of a view changed: its rows at {@code toGeneration} are its rows at
 * {@code fromGeneration} without {@link #removed()}, with each {@link #changed()} row's
 * {@code before} replaced by its {@code after}, and with {@link #added()}. Never a part of a flip,
 * never two flips mixed: applied in the order they come, deltas take a subscriber from one
 * generation readers read to the next, each exactly as {@link dev.materializer.core.ViewFilter}
 * reads it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param partition the view's partition
 * @param viewId the text of the view's {@code _id}
 * @param fromGeneration the generation the view moved from (that of the previous delta or snapshot)
 * @param toGeneration the generation it moved to
 * @param added rows that were not in {@code fromGeneration}
 * @param changed rows in both whose content changed
 * @param removed rows that are no longer in the view
 */
public record ViewDelta(String partition, String viewId, long fromGeneration, long toGeneration,
        List<ViewRow> added, List<Change> changed, List<ViewRow> removed) {

    /** Copies the lists and checks the order of the generations. */
    public ViewDelta {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(viewId, "viewId");
        if (toGeneration <= fromGeneration) {
            throw new IllegalArgumentException("a delta moves to a later generation, got " + fromGeneration + " to "
                    + toGeneration);
        }
        added = List.copyOf(added);
        changed = List.copyOf(changed);
        removed = List.copyOf(removed);
    }

    /** Whether the flip changed no row (a first pass of an empty result, say). */
    public boolean isEmpty() {
        return added.isEmpty() && changed.isEmpty() && removed.isEmpty();
    }

    /**
     * A row whose content changed in the flip: the same row key closed and opened again.
     * @param before the row at {@code fromGeneration}
     * @param after the row at {@code toGeneration}
     */
    public record Change(ViewRow before, ViewRow after) {

        /** Checks that both sides are one row. */
        public Change {
            if (!before.key().equals(after.key())) {
                throw new IllegalArgumentException("a change pairs one row, got " + before.key() + " and " + after.key());
            }
        }
    }
}
