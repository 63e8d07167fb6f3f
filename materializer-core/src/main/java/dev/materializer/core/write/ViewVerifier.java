package dev.materializer.core.write;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Compares a view's current generation with a fresh run of its pipeline: the reconciler's check
 * and the endpoint's verify. Unlike a pass it reads the stored rows whole and hashes their content
 * again, so it also sees a row edited by hand whose stored hash still says otherwise — which a
 * pass, trusting the stored hash, would leave as it is. Asked to, it marks such rows so the pass
 * that heals the view rewrites them; otherwise it writes nothing. It merges the sorted result with
 * the sorted stored rows, as a pass does, so its memory does not grow with the view.
 *
 * <p>Immutable and thread-safe.
 */
final class ViewVerifier {

    private final MongoDatabase database;

    private final StatusStore statuses;

    private final ResultReader reader;

    private final TargetRows rows;

    private final RowHasher hasher;

    ViewVerifier(MongoDatabase database, StatusStore statuses, ResultReader reader, TargetRows rows, RowHasher hasher) {
        this.database = database;
        this.statuses = statuses;
        this.reader = reader;
        this.rows = rows;
        this.hasher = hasher;
    }

    VerifyReport verify(ViewDefinition view, boolean markEditedRows) throws ViewRunException {
        long started = System.nanoTime();
        String partition = view.partition();
        @Nullable Generation current = statuses.read(view).generation();
        Map<String, @Nullable Generation> generations = statuses.currentGenerations(partition);
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        Differences differences = new Differences();
        try (ResultReader.Cursor result = reader.open(view, generations);
                StoredRows stored = StoredRows.open(target, rows, partition, current, true)) {
            new RowMerge(result, stored, hasher).run(differences);
        }
        catch (PassSupersededException ex) {
            throw new IllegalStateException("a verification never gives way", ex);
        }
        if (markEditedRows && !differences.edited.isEmpty()) {
            // Their stored hash says "equal": make it say "differs", or the pass would keep them as they are.
            for (int start = 0; start < differences.edited.size(); start += TargetRows.GROUP_SIZE) {
                List<BsonValue> group = differences.edited.subList(start,
                        Math.min(differences.edited.size(), start + TargetRows.GROUP_SIZE));
                target.updateMany(rows.byIds(group, partition),
                        new BsonDocument("$set", new BsonDocument(ViewFilter.HASH_FIELD, new BsonString("edited"))));
            }
        }
        return new VerifyReport(view.key(), differences.resultRows, differences.missing, differences.changed,
                differences.extra, Duration.ofNanos(System.nanoTime() - started), null);
    }

    /** What the merge found. Not thread-safe. */
    private final class Differences implements RowMerge.Visitor {

        private long resultRows;

        private long missing;

        private long changed;

        private long extra;

        private final List<BsonValue> edited = new ArrayList<>();

        @Override
        public void both(ResultRow row, StoredRows.Stored stored) {
            resultRows++;
            String contentHash = hasher.hash(rows.contentOf(stored.document()));
            if (!row.hash().equals(contentHash)) {
                changed++;
                if (row.hash().equals(stored.hash())) {
                    edited.add(stored.storedId());
                }
            }
        }

        @Override
        public void onlyInResult(ResultRow row) {
            resultRows++;
            missing++;
        }

        @Override
        public void onlyStored(StoredRows.Stored stored) {
            extra++;
        }
    }
}
