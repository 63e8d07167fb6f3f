package dev.materializer.core.write;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import dev.materializer.core.view.ViewFilter;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * Compares a view's current generation with a fresh run of its pipeline: the reconciler's check
 * and the endpoint's verify. Unlike a pass it reads the stored rows whole and hashes their content
 * again, so it also sees a row edited by hand whose stored hash still says otherwise — which a
 * pass, trusting the stored hash, would leave as it is. Asked to, it marks such rows so the pass
 * that heals the view rewrites them; otherwise it writes nothing.
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
        @Nullable ObjectId current = statuses.read(view).generation();
        List<ObjectId> generations = statuses.currentGenerations(partition);
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        Map<String, Stored> stored = new HashMap<>();
        if (current != null) {
            for (BsonDocument row : target.find(rows.inGeneration(partition, current)).batchSize(TargetRows.GROUP_SIZE)) {
                BsonValue hash = row.get(ViewFilter.HASH_FIELD);
                stored.put(hasher.idKey(row.get("_id")), new Stored(row.get("_id"),
                        hash != null && hash.isString() ? hash.asString().getValue() : null,
                        hasher.hash(rows.contentOf(row))));
            }
        }
        long resultRows = 0;
        long missing = 0;
        long changed = 0;
        Set<String> seen = new HashSet<>();
        List<BsonValue> edited = new ArrayList<>();
        try (ResultReader.Cursor result = reader.open(view, generations)) {
            for (List<ResultRow> group = result.nextGroup(); group != null; group = result.nextGroup()) {
                for (ResultRow row : group) {
                    resultRows++;
                    Stored found = current == null ? null
                            : stored.get(hasher.idKey(rows.storedId(row.id(), partition, current)));
                    if (found == null) {
                        missing++;
                        continue;
                    }
                    seen.add(hasher.idKey(found.id()));
                    if (!row.hash().equals(found.contentHash())) {
                        changed++;
                        if (row.hash().equals(found.storedHash())) {
                            edited.add(found.id());
                        }
                    }
                }
            }
        }
        long extra = stored.size() - seen.size();
        if (markEditedRows && !edited.isEmpty()) {
            // Their stored hash says "equal": make it say "differs", or the pass would keep them as they are.
            target.updateMany(rows.byIds(edited, partition),
                    new BsonDocument("$set", new BsonDocument(ViewFilter.HASH_FIELD, new BsonString("edited"))));
        }
        return new VerifyReport(view.key(), resultRows, missing, changed, extra,
                Duration.ofNanos(System.nanoTime() - started), null);
    }

    private record Stored(BsonValue id, @Nullable String storedHash, String contentHash) {
    }
}
