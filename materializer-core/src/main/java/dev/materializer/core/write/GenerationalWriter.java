package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.ReplaceOneModel;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.WriteMode;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a view as a whole new generation, in groups, outside any transaction, then flips the
 * view's status to it: readers filtering by the current generation move from one whole generation
 * to the next at once.
 *
 * <p>Before writing anything it compares the result with the current generation by hash: when
 * every row matches and none is missing, nothing is written. At the first group with a difference
 * it takes the view's lease, copies the rows already found equal from the current generation (so
 * the pipeline runs once), and writes the rest of the result. The lease is renewed after each
 * group; the flip needs the live lease and the generation the pass started from. A pass that fails
 * releases its lease and leaves its rows behind, for the sweep of a later pass.
 *
 * <p>Comparing first is safe: the compare-and-set of the flip (generation and write version, see
 * {@link GenerationFlip}), not the comparison, fences passes of other instances. A result found
 * equal is confirmed by the runner with the same compare-and-set, so a pass that started earlier and
 * would flip an older result after it gives way.
 *
 * <p>Immutable and thread-safe.
 */
final class GenerationalWriter {

    private static final Logger log = LoggerFactory.getLogger(GenerationalWriter.class);

    private static final BulkWriteOptions UNORDERED = new BulkWriteOptions().ordered(false);

    private final MongoDatabase database;

    private final ResultReader reader;

    private final TargetRows rows;

    private final RowHasher hasher;

    private final ViewLeases leases;

    private final GenerationFlip flip;

    private final String instanceId;

    GenerationalWriter(MongoDatabase database, MaterializerOptions options, ResultReader reader, TargetRows rows,
            RowHasher hasher, ViewLeases leases, GenerationFlip flip) {
        this.database = database;
        this.reader = reader;
        this.rows = rows;
        this.hasher = hasher;
        this.leases = leases;
        this.flip = flip;
        this.instanceId = options.instanceId();
    }

    /**
     * Writes the view's result as a new generation, unless it equals the current one.
     * @param current the generation readers read, null before the first run
     * @param version the write version the pass started from, which its flip requires
     * @param generations the current generations of the partition, for the guard
     */
    WriteOutcome write(ViewDefinition view, @Nullable ObjectId current, long version, Collection<ObjectId> generations)
            throws ViewRunException, PassSupersededException {
        String partition = view.partition();
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        try (ResultReader.Cursor result = reader.open(view, generations)) {
            Comparison comparison = current == null ? null
                    : new Comparison(StoredGeneration.read(target, null, rows.inGeneration(partition, current), hasher),
                            partition, current);
            List<ResultRow> pending = result.nextGroup();
            if (comparison != null) {
                while (pending != null && comparison.allEqual(pending, true)) {
                    pending = result.nextGroup();
                }
                if (pending == null && comparison.nothingMissing()) {
                    return WriteOutcome.unchanged(WriteMode.GENERATION);
                }
            }
            BsonValue sample = comparison != null && !comparison.equalSoFar.isEmpty()
                    ? comparison.equalSoFar.values().iterator().next()
                    : pending != null ? pending.get(0).id() : null;
            if (sample != null) {
                rows.verify(sample, partition);
            }
            // Made just before the lease: its time tells the sweep of another instance that it is new
            ObjectId generation = new ObjectId();
            String owner = instanceId + "/" + generation.toHexString();
            if (!leases.take(view, owner, generation)) {
                throw new PassSupersededException("a pass of another instance holds the view");
            }
            long written = 0;
            try {
                if (comparison != null && current != null) {
                    written += copyEqualRows(view, target, current, comparison.equalSoFar, generation, owner);
                }
                boolean compared = comparison != null;
                while (pending != null) {
                    if (comparison != null && !compared) {
                        comparison.allEqual(pending, false);
                    }
                    written += writeGroup(view, target, pending, generation, owner);
                    compared = false;
                    pending = result.nextGroup();
                }
                if (!flip.flip(view, current, version, generation, owner)) {
                    throw new PassSupersededException(
                            "the pass lost its lease, or another pass changed the generation of the view");
                }
            }
            catch (ViewRunException | PassSupersededException | RuntimeException ex) {
                releaseQuietly(view, owner);
                throw ex;
            }
            long oldLayout = target.deleteMany(rows.withoutGeneration(partition)).getDeletedCount();
            if (oldLayout > 0) {
                log.info("View {}: removed {} row(s) without {} left by an older engine", view.key(), oldLayout,
                        ViewFilter.GENERATION_FIELD);
            }
            return new WriteOutcome(WriteMode.GENERATION, true, written,
                    comparison == null ? 0 : comparison.missingCount());
        }
    }

    /** Copies the rows found equal from the current generation into the new one, in groups. */
    private long copyEqualRows(ViewDefinition view, MongoCollection<BsonDocument> target, ObjectId current,
            Map<String, BsonValue> equalRows, ObjectId generation, String owner)
            throws ViewRunException, PassSupersededException {
        if (equalRows.isEmpty()) {
            return 0;
        }
        long copied = 0;
        List<ReplaceOneModel<BsonDocument>> writes = new ArrayList<>(TargetRows.GROUP_SIZE);
        for (BsonDocument stored : target.find(rows.inGeneration(view.partition(), current))
            .batchSize(TargetRows.GROUP_SIZE)) {
            BsonValue rowId = equalRows.get(hasher.idKey(stored.get("_id")));
            BsonValue hash = stored.get(ViewFilter.HASH_FIELD);
            if (rowId == null || hash == null || !hash.isString()) {
                continue;
            }
            writes.add(rows.upsert(rows.stored(rowId, rows.contentOf(stored), hash.asString().getValue(),
                    view.partition(), generation)));
            if (writes.size() == TargetRows.GROUP_SIZE) {
                copied += bulkWrite(target, writes);
                renew(view, owner);
                writes.clear();
            }
        }
        if (!writes.isEmpty()) {
            copied += bulkWrite(target, writes);
            renew(view, owner);
        }
        return copied;
    }

    private long writeGroup(ViewDefinition view, MongoCollection<BsonDocument> target, List<ResultRow> group,
            ObjectId generation, String owner) throws ViewRunException, PassSupersededException {
        List<ReplaceOneModel<BsonDocument>> writes = new ArrayList<>(group.size());
        for (ResultRow row : group) {
            writes.add(rows.upsert(rows.stored(row.id(), row.content(), row.hash(), view.partition(), generation)));
        }
        long written = bulkWrite(target, writes);
        renew(view, owner);
        return written;
    }

    private static long bulkWrite(MongoCollection<BsonDocument> target, List<ReplaceOneModel<BsonDocument>> writes)
            throws ViewRunException {
        try {
            target.bulkWrite(writes, UNORDERED);
            return writes.size();
        }
        catch (MongoException ex) {
            if (MongoFailures.isInfrastructure(ex)) {
                throw ex;
            }
            throw new ViewRunException("the write of a group of rows failed: " + MongoFailures.messageOf(ex));
        }
    }

    private void renew(ViewDefinition view, String owner) throws PassSupersededException {
        if (!leases.renew(view, owner)) {
            throw new PassSupersededException("the pass lost its lease");
        }
    }

    private void releaseQuietly(ViewDefinition view, String owner) {
        try {
            leases.release(view, owner);
        }
        catch (RuntimeException ex) {
            log.warn("View {}: the lease of a failed pass could not be released; it ends on its own: {}",
                    view.key(), ex.toString());
        }
    }

    /** The result compared with the current generation as it streams by. Not thread-safe. */
    private final class Comparison {

        private final StoredGeneration stored;

        private final String partition;

        private final ObjectId current;

        /** The rows found equal before the first difference: key of the stored id, row id. */
        private final Map<String, BsonValue> equalSoFar = new HashMap<>();

        /** The keys of the stored rows that the result has, equal or not. */
        private final Set<String> found = new HashSet<>();

        Comparison(StoredGeneration stored, String partition, ObjectId current) {
            this.stored = stored;
            this.partition = partition;
            this.current = current;
        }

        /**
         * Compares a group; true when each of its rows is stored with the same hash.
         * @param keepEqual whether to remember the group's rows as equal when they all are
         */
        boolean allEqual(List<ResultRow> group, boolean keepEqual) {
            boolean equal = true;
            Map<String, BsonValue> keys = new HashMap<>();
            for (ResultRow row : group) {
                String key = stored.keyOf(rows.storedId(row.id(), partition, current));
                keys.put(key, row.id());
                if (stored.contains(key)) {
                    found.add(key);
                }
                equal &= row.hash().equals(stored.hashOf(key));
            }
            if (equal && keepEqual) {
                equalSoFar.putAll(keys);
            }
            return equal;
        }

        boolean nothingMissing() {
            return found.size() == stored.size();
        }

        long missingCount() {
            return stored.size() - found.size();
        }
    }
}
