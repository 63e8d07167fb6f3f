package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.ViewKey;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Merges a view's result with its stored rows, both sorted by row id, and tells each row what it
 * is: in both (by an id equal type for type), only in the result, or only stored. It holds one run of
 * rows with ids that sort alike at a time — one row, but for ids such as {@code 1} and {@code 1.0},
 * which sort together and are different rows — so its memory does not grow with the view.
 *
 * <p>Two result rows with the same id are an error of the view: one of them would be lost.
 *
 * <p>Not thread-safe: one pass uses it.
 */
final class RowMerge {

    /** What the merge tells about each row. */
    interface Visitor {

        /** The result row and the stored row have the same id. */
        void both(ResultRow row, StoredRows.Stored stored) throws ViewRunException, PassSupersededException;

        /** The result has a row that is not stored. */
        void onlyInResult(ResultRow row) throws ViewRunException, PassSupersededException;

        /** A stored row the result no longer has. */
        void onlyStored(StoredRows.Stored stored) throws ViewRunException, PassSupersededException;
    }

    /** The result side of a merge, in {@code _id} order. */
    interface ResultSide {

        /** The next row, or null after the last. */
        @Nullable
        ResultRow next() throws ViewRunException;
    }

    /** The stored side of a merge, in {@code _viewRow} order. */
    interface StoredSide {

        /** The next stored version, or null after the last. */
        StoredRows.@Nullable Stored next();
    }

    private final ResultSide result;

    private final StoredSide stored;

    private final RowHasher hasher;

    private @Nullable ResultRow nextResult;

    private StoredRows.@Nullable Stored nextStored;

    RowMerge(ResultSide result, StoredSide stored, RowHasher hasher) {
        this.result = result;
        this.stored = stored;
        this.hasher = hasher;
    }

    /** Runs the merge to the end of both. */
    void run(Visitor visitor) throws ViewRunException, PassSupersededException {
        nextResult = result.next();
        nextStored = stored.next();
        List<ResultRow> rows = resultRun();
        List<StoredRows.Stored> stores = storedRun();
        while (!rows.isEmpty() || !stores.isEmpty()) {
            int order = rows.isEmpty() ? 1 : stores.isEmpty() ? -1
                    : BsonOrder.INSTANCE.compare(rows.get(0).id(), rowIdOf(stores.get(0)));
            if (order < 0) {
                for (ResultRow row : rows) {
                    visitor.onlyInResult(row);
                }
                rows = resultRun();
            }
            else if (order > 0) {
                for (StoredRows.Stored row : stores) {
                    visitor.onlyStored(row);
                }
                stores = storedRun();
            }
            else {
                match(rows, stores, visitor);
                rows = resultRun();
                stores = storedRun();
            }
        }
    }

    private void match(List<ResultRow> rows, List<StoredRows.Stored> stores, Visitor visitor)
            throws ViewRunException, PassSupersededException {
        Map<String, StoredRows.Stored> byKey = new HashMap<>();
        List<StoredRows.Stored> unmatched = new ArrayList<>();
        for (StoredRows.Stored row : stores) {
            if (row.rowId() == null || byKey.putIfAbsent(hasher.idKey(row.rowId()), row) != null) {
                unmatched.add(row);
            }
        }
        for (ResultRow row : rows) {
            StoredRows.Stored same = byKey.remove(hasher.idKey(row.id()));
            if (same != null) {
                visitor.both(row, same);
            }
            else {
                visitor.onlyInResult(row);
            }
        }
        unmatched.addAll(byKey.values());
        for (StoredRows.Stored row : unmatched) {
            visitor.onlyStored(row);
        }
    }

    /** The next result rows whose ids sort alike; empty at the end. */
    private List<ResultRow> resultRun() throws ViewRunException {
        if (nextResult == null) {
            return List.of();
        }
        List<ResultRow> run = new ArrayList<>(1);
        Map<String, Boolean> keys = new HashMap<>(2);
        ResultRow head = nextResult;
        while (nextResult != null && (run.isEmpty() || BsonOrder.INSTANCE.compare(head.id(), nextResult.id()) == 0)) {
            if (keys.put(hasher.idKey(nextResult.id()), Boolean.TRUE) != null) {
                throw new ViewRunException("the result has more than one row with _id " + ViewKey.idText(nextResult.id())
                        + "; each row of a view needs its own _id");
            }
            run.add(nextResult);
            nextResult = result.next();
        }
        return run;
    }

    /** The next stored rows whose ids sort alike; empty at the end. */
    private List<StoredRows.Stored> storedRun() {
        if (nextStored == null) {
            return List.of();
        }
        List<StoredRows.Stored> run = new ArrayList<>(1);
        StoredRows.Stored head = nextStored;
        while (nextStored != null
                && (run.isEmpty() || BsonOrder.INSTANCE.compare(rowIdOf(head), rowIdOf(nextStored)) == 0)) {
            run.add(nextStored);
            nextStored = stored.next();
        }
        return run;
    }

    private static BsonValue rowIdOf(StoredRows.Stored row) {
        return row.rowId() == null ? BsonNull.VALUE : row.rowId();
    }
}
