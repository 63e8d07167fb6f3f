package dev.materializer.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A subscriber that keeps a view's rows: it starts from each snapshot and applies each delta, so
 * {@link #rows()} is the view at {@link #generation()} as a reader reads it. Deltas that do not
 * start where it stands are refused (an {@link IllegalStateException} the subscription logs),
 * never applied.
 *
 * <p>Thread-safe: the subscription's thread writes, any thread reads.
 */
public class LiveRows implements ViewSubscriber {

    private final Map<String, ViewRow> rows = new LinkedHashMap<>();

    private long generation;

    private boolean started;

    @Override
    public synchronized void onSnapshot(ViewRowsSnapshot snapshot) {
        rows.clear();
        snapshot.rows().forEach(row -> rows.put(row.key(), row));
        generation = snapshot.generation();
        started = true;
    }

    @Override
    public synchronized void onDelta(ViewDelta delta) {
        if (!started || delta.fromGeneration() != generation) {
            throw new IllegalStateException("a delta from generation " + delta.fromGeneration() + " to rows at "
                    + (started ? Long.toString(generation) : "no generation yet"));
        }
        delta.removed().forEach(row -> rows.remove(row.key()));
        delta.changed().forEach(change -> rows.put(change.after().key(), change.after()));
        delta.added().forEach(row -> rows.put(row.key(), row));
        generation = delta.toGeneration();
    }

    @Override
    public synchronized void onResumed(long from) {
        if (!started) {
            // Resumed by a subscriber that holds the rows elsewhere: this one starts empty at that generation.
            generation = from;
            started = true;
        }
    }

    /** The rows now, in no particular order. */
    public synchronized List<ViewRow> rows() {
        return new ArrayList<>(rows.values());
    }

    /** The generation of the rows; 0 before the first snapshot or at a view with no rows to read. */
    public synchronized long generation() {
        return generation;
    }
}
