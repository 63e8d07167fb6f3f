package dev.materializer.core.convergence;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.materializer.core.hash.RowHasher;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Rows counted by their canonical form: the row id as MongoDB compares ids (type-aware, keys of an
 * id document in order) and the content as MongoDB compares documents (keys in order at every
 * depth), sensitive to types and to the order of arrays. The canonical form is {@link RowHasher}'s encoding,
 * computed here from the rows themselves, never the {@code _viewHash} the engine stored.
 *
 * <p>Not thread-safe; one per comparison.
 */
final class RowMultiset {

    private final RowHasher hasher;

    /** Per canonical key, one of its rows and how many times it occurs. */
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    RowMultiset(RowHasher hasher) {
        this.hasher = hasher;
    }

    /** Counts a row once more. */
    void add(BsonValue id, BsonDocument content) {
        String key = hasher.idKey(id) + ":" + hasher.hash(content);
        entries.computeIfAbsent(key, k -> new Entry(row(id, content))).count++;
    }

    /** The rows of this multiset that the other lacks, each as many times as it is lacking. */
    List<BsonDocument> minus(RowMultiset other) {
        List<BsonDocument> lacking = new ArrayList<>();
        entries.forEach((key, entry) -> {
            Entry theirs = other.entries.get(key);
            int surplus = entry.count - (theirs == null ? 0 : theirs.count);
            for (int i = 0; i < surplus; i++) {
                lacking.add(entry.row);
            }
        });
        return lacking;
    }

    /** The row as a reader of the pipeline's result sees it: its own {@code _id}, then its content. */
    private static BsonDocument row(BsonValue id, BsonDocument content) {
        BsonDocument row = new BsonDocument("_id", id);
        row.putAll(content);
        return row;
    }

    private static final class Entry {

        private final BsonDocument row;

        private int count;

        private Entry(BsonDocument row) {
            this.row = row;
        }
    }
}
