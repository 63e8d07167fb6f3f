package dev.materializer.core.routing;

import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;

/**
 * The field paths a view reads in one source (its {@code sourceFields}), compiled once, to tell
 * whether an update touches any of them. Paths compare without array positions; a key counts when
 * it is a watched path, its parent or its child; removed fields and truncated arrays count; the
 * partition field always counts. An update without an update description may touch anything.
 *
 * <p>Array positions are the segments made of digits only ({@code lines.0.price} is
 * {@code lines.price}, {@code lines.3} is {@code lines}); removing them can only widen the match.
 *
 * <p>Immutable and thread-safe.
 */
public final class WatchedFields {

    /** Marks "every field": the view reads the whole document. */
    private static final WatchedFields EVERY_FIELD = new WatchedFields(new String[0][]);

    /** The watched paths, split into segments, array positions removed; empty for every field. */
    private final String[][] paths;

    private WatchedFields(String[][] paths) {
        this.paths = paths;
    }

    /**
     * Compiles the watched paths.
     * @param fields the view's {@code sourceFields} for the source; empty means every field
     * @param partitionField the partition field, always watched
     * @return the compiled paths
     * @throws IllegalArgumentException when a path or the partition field is blank
     */
    public static WatchedFields of(List<String> fields, String partitionField) {
        requirePath(partitionField, "partitionField");
        if (fields.isEmpty()) {
            return EVERY_FIELD;
        }
        List<String[]> compiled = new ArrayList<>(fields.size() + 1);
        for (int i = 0; i < fields.size(); i++) {
            String field = fields.get(i);
            requirePath(field, "sourceFields[" + i + "]");
            compiled.add(segmentsWithoutPositions(field));
        }
        compiled.add(segmentsWithoutPositions(partitionField));
        return new WatchedFields(compiled.toArray(new String[0][]));
    }

    /**
     * Whether the change may touch a watched field. Only an update with an update description that
     * names none of them gives false; every other change gives true.
     * @param change the change
     * @return false only when the change surely leaves every watched field alone
     */
    public boolean mayBeTouchedBy(SourceChange change) {
        if (change.operation() != Operation.UPDATE || paths.length == 0) {
            return true;
        }
        UpdatedFields update = change.update();
        // No update description: the update may have changed any field.
        if (update == null) {
            return true;
        }
        return anyTouches(update.updated()) || anyTouches(update.removed())
            || anyTouches(update.truncatedArrays());
    }

    private boolean anyTouches(List<String> keys) {
        for (int i = 0, n = keys.size(); i < n; i++) {
            String key = keys.get(i);
            for (String[] path : paths) {
                if (overlaps(key, path)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the key, without its array positions, equals the path, is a parent or a child of it:
     * that is, whether their common leading segments are all equal. Walks the key in place so no
     * substring is made.
     */
    static boolean overlaps(String key, String[] path) {
        int length = key.length();
        int matched = 0;
        int start = 0;
        while (start <= length && matched < path.length) {
            int end = key.indexOf('.', start);
            if (end < 0) {
                end = length;
            }
            if (!isPosition(key, start, end)) {
                String segment = path[matched];
                if (segment.length() != end - start || !key.regionMatches(start, segment, 0, end - start)) {
                    return false;
                }
                matched++;
            }
            start = end + 1;
        }
        // One ran out of segments with all common segments equal: equal, parent or child.
        return true;
    }

    /** A segment of digits only is an array position. */
    private static boolean isPosition(String key, int start, int end) {
        if (start == end) {
            return false;
        }
        for (int i = start; i < end; i++) {
            char c = key.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static String[] segmentsWithoutPositions(String path) {
        List<String> segments = new ArrayList<>();
        int start = 0;
        while (start <= path.length()) {
            int end = path.indexOf('.', start);
            if (end < 0) {
                end = path.length();
            }
            if (!isPosition(path, start, end)) {
                segments.add(path.substring(start, end));
            }
            start = end + 1;
        }
        return segments.toArray(new String[0]);
    }

    private static void requirePath(String path, String name) {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException(name + " must be a non-blank field path, got '" + path + "'");
        }
    }

    @Override
    public String toString() {
        if (paths.length == 0) {
            return "WatchedFields[every field]";
        }
        StringBuilder text = new StringBuilder("WatchedFields[");
        for (int i = 0; i < paths.length; i++) {
            text.append(i == 0 ? "" : ", ").append(String.join(".", paths[i]));
        }
        return text.append(']').toString();
    }
}
