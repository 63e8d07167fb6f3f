package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.mongodb.ReadConcern;
import com.mongodb.TransactionOptions;
import com.mongodb.WriteConcern;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReplaceOneModel;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.WriteMode;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * Writes a view in one transaction, in its current generation (a new one at the first run): the
 * rows whose hash changed and the removal of the rows the result no longer has — at the first run
 * also the rows of an engine older than generations. A change of the generation since the pass
 * started gives way. More than {@code maxTransactionRows} rows to write or remove ends the attempt
 * with {@link TooLargeForTransactionException}, so the view goes in groups instead.
 *
 * <p>Fenced: when it writes rows it moves the view's write version inside the transaction, with a
 * compare-and-set on the generation and the version it started from. A flip of a pass in groups
 * needs that version, so it cannot land over this write; and a flip or another transaction that
 * wrote the view document since this one's snapshot makes this one a write conflict, so it gives
 * way instead of committing an older result.
 *
 * <p>Immutable and thread-safe.
 */
final class TransactionalWriter {

    private static final BulkWriteOptions UNORDERED = new BulkWriteOptions().ordered(false);

    /** Snapshot reads and majority commits on the primary, whatever the client's defaults. */
    private static final TransactionOptions TRANSACTION = dev.materializer.core.server.EngineConcerns.TRANSACTION;

    private final MongoClient client;

    private final MongoDatabase database;

    private final ViewDocuments views;

    private final ResultReader reader;

    private final TargetRows rows;

    private final RowHasher hasher;

    private final GenerationFlip flip;

    private final int maxTransactionRows;

    /**
     * @param client the client of the transactions; the database is used through it, since a
     *     session belongs to the client that started it
     */
    TransactionalWriter(MongoClient client, MongoDatabase database, MaterializerOptions options, ResultReader reader,
            TargetRows rows, RowHasher hasher, GenerationFlip flip) {
        this.client = client;
        this.database = client.getDatabase(database.getName()).withCodecRegistry(database.getCodecRegistry());
        this.views = new ViewDocuments(this.database, options);
        this.reader = reader;
        this.rows = rows;
        this.hasher = hasher;
        this.flip = flip;
        this.maxTransactionRows = options.maxTransactionRows();
    }

    /**
     * Writes the view's result in one transaction.
     * @param current the generation readers read, null before the first run
     * @param version the write version the pass started from
     * @param generations the current generations of the partition, for the guard
     * @throws TooLargeForTransactionException when more rows change than a transaction may hold
     */
    WriteOutcome write(ViewDefinition view, @Nullable ObjectId current, long version, Collection<ObjectId> generations)
            throws ViewRunException, PassSupersededException, TooLargeForTransactionException {
        ObjectId generation = current != null ? current : new ObjectId();
        String partition = view.partition();
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        try (ClientSession session = client.startSession()) {
            session.startTransaction(TRANSACTION);
            try {
                requireGeneration(session, view, current, version);
                // At the first run the scope also takes the rows of an engine older than generations
                BsonDocument scope = current != null ? rows.inGeneration(partition, generation)
                        : new BsonDocument(rows.partitionField(), new BsonString(partition)).append(
                                ViewFilter.GENERATION_FIELD, new BsonDocument("$in",
                                        new BsonArray(List.of(new BsonObjectId(generation), BsonNull.VALUE))));
                StoredGeneration stored = StoredGeneration.read(target, session, scope, hasher);
                Set<String> seen = new HashSet<>();
                long written = 0;
                try (ResultReader.Cursor result = reader.open(view, generations)) {
                    boolean verified = false;
                    for (List<ResultRow> group = result.nextGroup(); group != null; group = result.nextGroup()) {
                        if (!verified) {
                            rows.verify(group.get(0).id(), partition);
                            verified = true;
                        }
                        List<ReplaceOneModel<BsonDocument>> writes = new ArrayList<>();
                        for (ResultRow row : group) {
                            String key = stored.keyOf(rows.storedId(row.id(), partition, generation));
                            seen.add(key);
                            if (!row.hash().equals(stored.hashOf(key))) {
                                writes.add(rows.upsert(rows.stored(row.id(), row.content(), row.hash(), partition,
                                        generation)));
                            }
                        }
                        written += writes.size();
                        requireWithinLimit(written);
                        if (!writes.isEmpty()) {
                            target.bulkWrite(session, writes, UNORDERED);
                        }
                    }
                }
                List<BsonValue> stale = stored.idsNotIn(seen);
                requireWithinLimit(written + stale.size());
                for (int start = 0; start < stale.size(); start += TargetRows.GROUP_SIZE) {
                    target.deleteMany(session, rows.byIds(
                            stale.subList(start, Math.min(stale.size(), start + TargetRows.GROUP_SIZE)), partition));
                }
                // Naming the first generation changes what readers read, even with no rows
                boolean changed = current == null || written > 0 || !stale.isEmpty();
                if (changed && !flip.commitInTransaction(session, views.collection(), view, current, generation, version)) {
                    throw new PassSupersededException("another pass wrote the view since this one started");
                }
                session.commitTransaction();
                return new WriteOutcome(WriteMode.TRANSACTION, changed, written, stale.size());
            }
            finally {
                if (session.hasActiveTransaction()) {
                    abortQuietly(session);
                }
            }
        }
    }

    /** Gives way when another pass changed the generation since this pass read it. */
    private void requireGeneration(ClientSession session, ViewDefinition view, @Nullable ObjectId current, long version)
            throws PassSupersededException {
        BsonDocument document = views.collection()
            .find(session, views.filter(view))
            .projection(Projections.include(views.status("generation"), views.status(ViewStatus.VERSION)))
            .first();
        if (document == null) {
            throw new PassSupersededException("the view document is gone");
        }
        BsonValue status = document.get(views.statusField());
        ViewStatus stored = ViewStatus.fromBson(status != null && status.isDocument() ? status.asDocument() : null);
        ObjectId now = stored.generation();
        if ((current == null ? now != null : !current.equals(now)) || stored.version() != version) {
            throw new PassSupersededException("another pass wrote the view since this one started");
        }
    }

    private void requireWithinLimit(long rowsToWrite) throws TooLargeForTransactionException {
        if (rowsToWrite > maxTransactionRows) {
            throw new TooLargeForTransactionException(
                    "more than " + maxTransactionRows + " rows to write in one transaction (maxTransactionRows)");
        }
    }

    private static void abortQuietly(ClientSession session) {
        try {
            session.abortTransaction();
        }
        catch (RuntimeException ex) {
            // The server aborts an abandoned transaction on its own.
        }
    }
}
