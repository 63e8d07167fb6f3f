package dev.materializer.spring.data;

import dev.materializer.core.SnapshotReason;
import org.jspecify.annotations.Nullable;

/**
 * One change of a view's rows, typed: a row added, changed or removed by a flip, or a reset — drop
 * what you hold, the rows of the view follow as {@link Kind#ADDED} — when the subscription starts
 * from now, cannot resume, or fell behind. Changes come in generation order; those of one flip (or
 * one reset and its rows) share a {@link #generation()}, and the next generation's come after all of
 * them.
 *
 * @param <T> the type of a row
 * @param kind what happened to the row
 * @param generation the generation the view moved to (that of the reset's rows, for a reset)
 * @param key the row's key (the {@code _id} the pipeline gave it); null for a reset
 * @param before the row before the flip: for {@link Kind#CHANGED} and {@link Kind#REMOVED}
 * @param after the row after the flip: for {@link Kind#ADDED} and {@link Kind#CHANGED}
 * @param reason why a reset: for {@link Kind#RESET} only
 */
public record ViewChange<T>(Kind kind, long generation, @Nullable Object key, @Nullable T before, @Nullable T after,
        @Nullable SnapshotReason reason) {

    /** What happened to a row. */
    public enum Kind {
        /** Drop every row held: the view's rows at {@code generation} follow, each as {@link #ADDED}. */
        RESET,
        /** A row that was not in the view. */
        ADDED,
        /** A row whose content changed. */
        CHANGED,
        /** A row no longer in the view. */
        REMOVED
    }

    /**
     * The row as it stands after the change: {@code after}, or {@code before} for a removal.
     * @return the row; null for a reset
     */
    public @Nullable T row() {
        return this.after != null ? this.after : this.before;
    }
}
