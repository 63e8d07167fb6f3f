package dev.materializer.core.routing;

import java.util.List;

/**
 * The field paths a view reads in one source (its {@code sourceFields}), compiled once, to tell
 * whether an update touches any of them. Paths compare without array positions; a key counts when
 * it is a watched path, its parent or its child; removed fields and truncated arrays count; the
 * partition field always counts. An update without an update description may touch anything.
 *
 * <p>Immutable and thread-safe.
 */
public final class WatchedFields {

    /**
     * Compiles the watched paths.
     * @param fields the view's {@code sourceFields} for the source; empty means every field
     * @param partitionField the partition field, always watched
     * @return the compiled paths
     */
    public static WatchedFields of(List<String> fields, String partitionField) {
        throw new UnsupportedOperationException("WatchedFields.of: not implemented yet");
    }

    /**
     * Whether the change may touch a watched field. Only an update with an update description that
     * names none of them gives false; every other change gives true.
     * @param change the change
     * @return false only when the change surely leaves every watched field alone
     */
    public boolean mayBeTouchedBy(SourceChange change) {
        throw new UnsupportedOperationException("WatchedFields.mayBeTouchedBy: not implemented yet");
    }
}
