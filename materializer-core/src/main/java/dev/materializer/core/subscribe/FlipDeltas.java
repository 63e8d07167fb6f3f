package dev.materializer.core.subscribe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewRow;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Splits the row versions that moved between two generations of a view into one delta per flip.
 * The rows of generation {@code n} are the versions with {@code _viewFrom <= n < _viewTo}, so from
 * {@code g} to {@code c} the versions that matter are those opened ({@code _viewFrom}) or closed
 * ({@code _viewTo}) at a number in {@code (g, c]}: each such number {@code n} adds the versions
 * opened at {@code n} and takes away those closed at {@code n} (a version opened and closed within
 * the range shows in the delta of each, as it showed in the generations between). A row key closed
 * and opened at one number is a change. Applied in order, the deltas take the rows of {@code g} to
 * those of {@code c} through every generation between that changed a row, each exactly as a reader
 * reads it; a flip that changed no row (an empty first pass) shows only as the last delta reaching
 * {@code c}.
 *
 * <p>Pure; not thread-safe (one per read).
 */
final class FlipDeltas {

    private final String partition;

    private final String viewId;

    private final long from;

    private final long to;

    private final RowKeys keys;

    /** Per number in {@code (from, to]}: the versions it opened and those it closed, by row key. */
    private final TreeMap<Long, Flip> flips = new TreeMap<>();

    /** The net change in the number of rows from {@code from} to {@code to}. */
    private long growth;

    /** A version the read returned that readers of {@code to} see, or null. */
    private @Nullable BsonDocument visibleAtEnd;

    FlipDeltas(String partition, String viewId, long from, long to, RowKeys keys) {
        if (to <= from) {
            throw new IllegalArgumentException("deltas run to a later generation, got " + from + " to " + to);
        }
        this.partition = partition;
        this.viewId = viewId;
        this.from = from;
        this.to = to;
        this.keys = keys;
    }

    /** Takes one version the read returned; versions outside the range change nothing. */
    void add(BsonDocument version) {
        long opened = number(version.get(ViewFilter.FROM_FIELD));
        long closed = number(version.get(ViewFilter.TO_FIELD));
        if (opened > from && opened <= to) {
            flips.computeIfAbsent(opened, n -> new Flip()).opened.put(keys.keyOf(version), keys.row(version));
            growth++;
        }
        if (closed > from && closed <= to) {
            flips.computeIfAbsent(closed, n -> new Flip()).closed.put(keys.keyOf(version), keys.row(version));
            growth--;
        }
        if (opened <= to && closed > to) {
            visibleAtEnd = version;
        }
    }

    /** The deltas, in generation order, the last one ending at {@code to}. */
    List<ViewDelta> deltas() {
        List<ViewDelta> deltas = new ArrayList<>();
        long at = from;
        for (Map.Entry<Long, Flip> entry : flips.entrySet()) {
            deltas.add(entry.getValue().delta(at, entry.getKey()));
            at = entry.getKey();
        }
        if (at < to) {
            deltas.add(new ViewDelta(partition, viewId, at, to, List.of(), List.of(), List.of()));
        }
        return deltas;
    }

    /** How many more rows readers of {@code to} see than readers of {@code from}. */
    long growth() {
        return growth;
    }

    /** A version readers of {@code to} see among those read, or null when none was. */
    @Nullable BsonDocument visibleAtEnd() {
        return visibleAtEnd;
    }

    /** A number as versions store it; a version without one is no version and counts as outside every range. */
    static long number(@Nullable BsonValue value) {
        return value != null && value.isNumber() ? value.asNumber().longValue() : Long.MIN_VALUE;
    }

    /** What one number opened and closed. */
    private final class Flip {

        private final Map<String, ViewRow> opened = new LinkedHashMap<>();

        private final Map<String, ViewRow> closed = new LinkedHashMap<>();

        ViewDelta delta(long before, long after) {
            List<ViewRow> added = new ArrayList<>();
            List<ViewDelta.Change> changed = new ArrayList<>();
            List<ViewRow> removed = new ArrayList<>();
            opened.forEach((key, row) -> {
                ViewRow was = closed.get(key);
                if (was == null) {
                    added.add(row);
                }
                else {
                    changed.add(new ViewDelta.Change(was, row));
                }
            });
            closed.forEach((key, row) -> {
                if (!opened.containsKey(key)) {
                    removed.add(row);
                }
            });
            return new ViewDelta(partition, viewId, before, after, added, changed, removed);
        }
    }
}
