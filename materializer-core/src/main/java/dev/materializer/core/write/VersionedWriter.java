package dev.materializer.core.write;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.mongodb.MongoException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.WriteModel;
import dev.materializer.core.WriteMode;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.server.EngineConcerns;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a view's result as the next generation of row versions, in writes proportional to the
 * diff: it merges the sorted result with the sorted rows of the current generation, adds a version
 * for each row that is new or changed, closes the version of each row changed or gone, and flips
 * the view to the new generation with a compare-and-set. A result equal to the stored rows writes
 * nothing (the runner confirms it with the same compare-and-set).
 *
 * <p>Readers of generation {@code g} see the versions with {@code _viewFrom <= g < _viewTo}. The
 * attempt writing {@code a > g} only adds versions from {@code a} and closes current versions at
 * {@code a}, so until the flip every reader still sees exactly {@code g}, and after it exactly
 * {@code a}: a reader never sees a mixed state, with or without transactions. An attempt that ends
 * without its flip leaves versions that no reader sees; the next attempt, which holds the lease,
 * removes what it added and reopens what it closed before writing.
 *
 * <p>Which way it writes: with transactions available and a diff of at most
 * {@code maxTransactionRows} changes, the changes and the flip go in one transaction (one round,
 * fenced by the transaction itself). Otherwise it takes the view's lease at the first group of
 * changes, writes in groups of {@value TargetRows#GROUP_SIZE}, renewing the lease before each, and
 * flips with the lease and the generation and version it started from. With transactions each group
 * commits together with a renewal of the lease, so a group of a pass paused past its lease never
 * lands; without, a group is fenced by the lease alone, and a pass that finds it lost the view undoes
 * its own number (the late versions are visible until then).
 *
 * <p>Memory: the merge holds a batch of the result, a batch of the stored rows and the changes not
 * yet written — a group of {@value TargetRows#GROUP_SIZE}, or up to {@code maxTransactionRows} while
 * a transaction may still take them — whatever the size of the view.
 *
 * <p>Immutable and thread-safe; each write belongs to one pass.
 */
final class VersionedWriter {

    private static final Logger log = LoggerFactory.getLogger(VersionedWriter.class);

    private static final BulkWriteOptions UNORDERED = new BulkWriteOptions().ordered(false);

    private final MongoDatabase database;

    private final @Nullable MongoClient transactions;

    private final @Nullable MongoDatabase transactionsDatabase;

    private final ViewDocuments transactionsViews;

    private final ResultReader reader;

    private final TargetRows rows;

    private final RowHasher hasher;

    private final ViewLeases leases;

    private final GenerationFlip flip;

    private final String instanceId;

    private final int maxTransactionRows;

    private final int maxRows;

    private final Pauses pauses;

    /**
     * Points of an attempt where a test holds the writer, to stand in for a process paused past its
     * lease. Visible for testing; the engine's writer never pauses.
     */
    interface Pauses {

        /** Pauses at none of them. */
        Pauses NONE = new Pauses() {
        };

        /** The attempt holds the lease and has its number; it has not removed the leftovers yet. */
        default void leaseTaken() {
        }

        /**
         * The attempt is about to send a group of changes under its lease, where a pause does the most
         * harm: without transactions once it renewed the lease, with them before the transaction that
         * renews it.
         * @param group the group's number in the attempt, from 1
         */
        default void beforeGroup(int group) {
        }

        /**
         * The attempt knows it lost the view to another pass and is about to undo its number.
         * @param attempt its number
         */
        default void beforeUndo(long attempt) {
        }
    }

    /**
     * Creates the writer, which never pauses between its steps.
     * @param transactions the client to write in transactions, null when the deployment has none;
     *     the database is used through it, since a session belongs to the client that started it
     */
    VersionedWriter(MongoDatabase database, @Nullable MongoClient transactions, WriteSettings options,
            ResultReader reader, TargetRows rows, RowHasher hasher, ViewLeases leases, GenerationFlip flip) {
        this(database, transactions, options, reader, rows, hasher, leases, flip, Pauses.NONE);
    }

    // Visible for testing: a writer that pauses where a test holds it
    VersionedWriter(MongoDatabase database, @Nullable MongoClient transactions, WriteSettings options,
            ResultReader reader, TargetRows rows, RowHasher hasher, ViewLeases leases, GenerationFlip flip,
            Pauses pauses) {
        this.pauses = pauses;
        this.database = database;
        this.transactions = transactions;
        this.transactionsDatabase = transactions == null ? null
                : transactions.getDatabase(database.getName()).withCodecRegistry(database.getCodecRegistry());
        this.transactionsViews = new ViewDocuments(transactionsDatabase == null ? database : transactionsDatabase,
                options);
        this.reader = reader;
        this.rows = rows;
        this.hasher = hasher;
        this.leases = leases;
        this.flip = flip;
        this.instanceId = options.instanceId();
        this.maxTransactionRows = options.maxTransactionRows();
        this.maxRows = options.maxRows();
    }

    /**
     * Writes the view's result as its next generation, unless it equals the current one.
     * @param start the view's status the pass started from: generation, write version, attempts
     * @param serverNow the server's time when that status was read
     * @param generations per target of a view of the partition, its current generation, for the guard
     */
    WriteOutcome write(ViewDefinition view, ViewStatus start, Instant serverNow,
            Map<String, @Nullable Generation> generations) throws ViewRunException, PassSupersededException {
        return write(view, start, serverNow, generations, null);
    }

    /**
     * Writes the view's result, or — given a key scope — the rows of the affected keys only.
     * @param scope the keys to recompute, or null for the whole view
     * @throws OutsideKeyScopeException when the restricted result has a row outside the scope;
     *     nothing was written that any reader sees
     */
    WriteOutcome write(ViewDefinition view, ViewStatus start, Instant serverNow,
            Map<String, @Nullable Generation> generations, @Nullable KeyScope scope)
            throws ViewRunException, PassSupersededException {
        return write(view, start, serverNow, generations, scope, false);
    }

    /**
     * Writes the view's result; when the view arrived in its place (its generation was written in
     * another target or partition), as its first versions there: none of the versions there are its
     * own, so it removes them all and writes the whole result, still fenced by the generation and
     * version it started from.
     * @param arrived whether the status's generation was written elsewhere
     */
    WriteOutcome write(ViewDefinition view, ViewStatus start, Instant serverNow,
            Map<String, @Nullable Generation> generations, @Nullable KeyScope scope, boolean arrived)
            throws ViewRunException, PassSupersededException {
        return write(view, start, ServerTime.readNow(serverNow), generations, scope, arrived, null);
    }

    /**
     * Writes the view's result as above; with a note, the ok state of the pass goes in the flip or
     * the confirmation that ends it ({@link PassStatus}), and the note keeps the status it left.
     * @param serverTime the server's time when the starting status was read, carried forward
     * @param note what the status says once the pass ends ok, or null to write only the result
     */
    WriteOutcome write(ViewDefinition view, ViewStatus start, ServerTime serverTime,
            Map<String, @Nullable Generation> generations, @Nullable KeyScope scope, boolean arrived,
            @Nullable PassStatus note) throws ViewRunException, PassSupersededException {
        return write(view, start, serverTime, generations, scope, arrived, note, null);
    }

    /**
     * Writes the view's result as above; a key-scoped pass given its keys' stored versions (read
     * with its starting status) reads none of its own, and closes them in the command of its new
     * versions.
     * @param versionsOfKeys the stored versions of the scope's row ids, whole, of every generation,
     *     in {@code _viewRow} order; null to read those of the current generation from the target
     */
    WriteOutcome write(ViewDefinition view, ViewStatus start, ServerTime serverTime,
            Map<String, @Nullable Generation> generations, @Nullable KeyScope scope, boolean arrived,
            @Nullable PassStatus note, @Nullable List<BsonDocument> versionsOfKeys)
            throws ViewRunException, PassSupersededException {
        if (arrived && scope != null) {
            throw new IllegalStateException("a view in a new place runs whole first");
        }
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        Attempt attempt = new Attempt(view, start, serverTime, target, scope == null ? null : keysOf(scope), arrived,
                note);
        Generation inPlace = attempt.inPlace;
        try (ResultReader.Cursor result = scope == null ? reader.open(view, generations)
                : reader.open(view, scope.pipeline(), generations);
                StoredRows stored = scope != null && versionsOfKeys != null && inPlace != null
                        ? StoredRows.ofGeneration(versionsOfKeys, inPlace)
                        : StoredRows.open(target, rows, view.partition(), inPlace, scope != null,
                                scope == null ? null : scope.rowIds())) {
            new RowMerge(result, stored, hasher).run(attempt);
            return attempt.finish();
        }
        catch (ViewRunException | PassSupersededException | RuntimeException ex) {
            attempt.abandon();
            throw ex;
        }
    }

    private Set<String> keysOf(KeyScope scope) {
        Set<String> keys = new HashSet<>();
        scope.rowIds().forEach(id -> keys.add(hasher.idKey(id)));
        return keys;
    }

    /** One pass's changes, and its lease once it writes in groups. Not thread-safe. */
    private final class Attempt implements RowMerge.Visitor {

        /** The id keys of the rows a key-scoped pass may write; null for a whole pass. */
        private final @Nullable Set<String> scope;

        private final ViewDefinition view;

        private final ViewStatus start;

        /**
         * The generation of the view's own rows in its place: the one it started from, or none when
         * that one was written in another place (the view arrived there).
         */
        private final @Nullable Generation inPlace;

        /** The server's time when the pass read its starting status: earlier than any write of it. */
        private final Instant serverNow;

        /** The same, carried forward to the leases' ends. */
        private final ServerTime serverTime;

        /** What the status says once the pass ends ok, sent with its flip; null to write the result only. */
        private final @Nullable PassStatus note;

        private final MongoCollection<BsonDocument> target;

        /** The rows of this attempt's versions have ids made with it, unique to the attempt. */
        private final ObjectId id = new ObjectId();

        private final String owner;

        private final List<ResultRow> added = new ArrayList<>();

        private final List<StoredRows.Stored> closed = new ArrayList<>();

        /** The generation this attempt writes, once it holds the lease; 0 before. */
        private long generation;

        private boolean verified;

        /** Whether this attempt took the view's lease (it writes in groups). */
        private boolean leased;

        /** Set once the attempt knows it can never flip: its lease went to another, or its flip failed. */
        private boolean lost;

        /**
         * Whether its groups go in transactions that also renew the lease, so none can land after
         * another pass took the view over; false without transactions, or after one failed for
         * another reason than a conflict.
         */
        private boolean groupsInTransactions = transactions != null;

        private long rowsWritten;

        /** The groups this attempt sent under its lease. */
        private int groups;

        private long rowsRemoved;

        /** Rows the result has that the stored generation lacks: what a key-scoped pass adds to the view. */
        private long rowsAdded;

        Attempt(ViewDefinition view, ViewStatus start, ServerTime serverTime, MongoCollection<BsonDocument> target,
                @Nullable Set<String> scope, boolean arrived, @Nullable PassStatus note) {
            this.scope = scope;
            this.view = view;
            this.start = start;
            this.inPlace = arrived ? null : start.generation();
            this.serverNow = serverTime.read();
            this.serverTime = serverTime;
            this.note = note;
            this.target = target;
            this.owner = instanceId + "/" + id.toHexString();
        }

        @Override
        public void both(ResultRow row, StoredRows.Stored stored) throws ViewRunException, PassSupersededException {
            requireInScope(row);
            if (!row.hash().equals(stored.hash())) {
                closed.add(stored);
                add(row);
            }
        }

        @Override
        public void onlyInResult(ResultRow row) throws ViewRunException, PassSupersededException {
            rowsAdded++;
            add(row);
        }

        @Override
        public void onlyStored(StoredRows.Stored stored) throws ViewRunException, PassSupersededException {
            closed.add(stored);
            rowsRemoved++;
            flushWhenFull();
        }

        private void add(ResultRow row) throws ViewRunException, PassSupersededException {
            requireInScope(row);
            if (!verified) {
                rows.verify(row.id(), view.partition());
                verified = true;
            }
            added.add(row);
            rowsWritten++;
            flushWhenFull();
        }

        /** A key-scoped pass writes only the rows its keys give: any other proves its restriction wrong. */
        private void requireInScope(ResultRow row) throws OutsideKeyScopeException {
            if (scope != null && !scope.contains(hasher.idKey(row.id()))) {
                throw new OutsideKeyScopeException(row.id());
            }
        }

        private int pending() {
            return added.size() + closed.size();
        }

        /**
         * Writes the changes once a group is full. With transactions and no lease yet, it first
         * gathers up to {@code maxTransactionRows} changes: a diff that small goes in one transaction.
         */
        private void flushWhenFull() throws ViewRunException, PassSupersededException {
            int limit = leased || transactions == null ? TargetRows.GROUP_SIZE
                    : Math.max(TargetRows.GROUP_SIZE, maxTransactionRows + 1);
            if (pending() >= limit) {
                boolean renewFirst = leased;
                if (!leased) {
                    begin();
                }
                writeGroup(renewFirst);
            }
        }

        WriteOutcome finish() throws ViewRunException, PassSupersededException {
            Generation current = inPlace;
            boolean firstVersions = current == null || current.isLegacy();
            if (firstVersions && scope != null) {
                throw new IllegalStateException("a view without versions runs whole first");
            }
            if (!leased && pending() == 0 && !firstVersions) {
                return WriteOutcome.unchanged(WriteMode.GENERATION);
            }
            requireWithinMaxRows(current);
            WriteMode mode;
            if (!leased && transactions != null && pending() <= maxTransactionRows && commitInTransaction()) {
                mode = WriteMode.TRANSACTION;
            }
            else {
                boolean renewFirst = leased;
                if (!leased) {
                    begin();
                }
                writeGroup(renewFirst);
                if (!flip.flip(view, start, serverNow, generation, owner, note)) {
                    lost = true;
                    throw new PassSupersededException(
                            "the pass lost its lease, or another pass changed the generation of the view");
                }
                mode = WriteMode.GENERATION;
            }
            if (firstVersions) {
                removeRowsBeforeVersions();
            }
            return new WriteOutcome(mode, true, rowsWritten, rowsRemoved);
        }

        /**
         * A key-scoped pass sees only its keys' rows: the whole view must still keep to
         * {@code maxRows}, as a whole pass would check. Counted (index-backed) only when it grows.
         */
        private void requireWithinMaxRows(@Nullable Generation current) throws ViewRunException {
            long growth = rowsAdded - rowsRemoved;
            if (scope == null || growth <= 0 || current == null) {
                return;
            }
            long stored = target.countDocuments(rows.inGeneration(view.partition(), current));
            if (stored + growth > maxRows) {
                throw ResultReader.overMaxRows(view, maxRows);
            }
        }

        /** Takes the lease and the next generation, and removes what attempts that did not flip left. */
        private void begin() throws PassSupersededException {
            long taken = leases.take(view, owner, start.generation(), start.version(), serverTime);
            if (taken == 0) {
                throw new PassSupersededException(
                        "a pass of another instance holds the view, or wrote it since this pass started");
            }
            generation = taken;
            leased = true;
            pauses.leaseTaken();
            removeLeftovers(taken, null, target);
        }

        /**
         * Writes the changes and the flip in one transaction.
         * @return false when the transaction failed for a reason that calls for writing in groups
         */
        private boolean commitInTransaction() throws ViewRunException, PassSupersededException {
            try {
                boolean committed = inTransaction((session, targetInSession) -> {
                    // First, so that a pass taking the lease meanwhile is a write conflict of this one
                    if (!flip.flipInTransaction(session, transactionsViews.collection(), view, start, serverNow, note)) {
                        throw new PassSupersededException("another pass holds or wrote the view since this one started");
                    }
                    generation = start.attempts() + 1;
                    removeLeftovers(generation, session, targetInSession);
                    send(targetInSession, session);
                }, "it writes in groups");
                if (!committed) {
                    generation = 0;
                    forgetNote();
                }
                return committed;
            }
            catch (PassSupersededException ex) {
                generation = 0;
                forgetNote();
                throw ex;
            }
            catch (RuntimeException ex) {
                forgetNote();
                throw ex;
            }
        }

        /** A flip sent in a transaction that did not commit left no status. */
        private void forgetNote() {
            if (note != null) {
                note.forget();
            }
        }

        /** What one transaction of the attempt writes, given its session and the target of its client. */
        @FunctionalInterface
        private interface TransactionWrites {

            void write(ClientSession session, MongoCollection<BsonDocument> targetInSession)
                    throws ViewRunException, PassSupersededException;
        }

        /**
         * Writes in one transaction and commits; the changes written are let go once committed.
         * @param fallback what the attempt does when the transaction fails for another reason than a
         *     conflict or the deployment, for the log
         * @return false when it failed for such a reason: nothing of it was written
         * @throws PassSupersededException when another writer of the view conflicted with it
         */
        private boolean inTransaction(TransactionWrites writes, String fallback)
                throws ViewRunException, PassSupersededException {
            MongoClient client = transactions;
            MongoDatabase inTransactions = transactionsDatabase;
            if (client == null || inTransactions == null) {
                throw new IllegalStateException("no transactions");
            }
            MongoCollection<BsonDocument> targetInSession = inTransactions.getCollection(view.targetCollection(),
                    BsonDocument.class);
            try (ClientSession session = client.startSession()) {
                session.startTransaction(EngineConcerns.TRANSACTION);
                try {
                    writes.write(session, targetInSession);
                    session.commitTransaction();
                    added.clear();
                    closed.clear();
                    return true;
                }
                catch (MongoException ex) {
                    if (MongoFailures.isWriteConflict(ex)) {
                        throw new PassSupersededException("another pass wrote the view at the same time ("
                                + MongoFailures.messageOf(ex) + ")");
                    }
                    if (MongoFailures.isInfrastructure(ex) && !ex.hasErrorLabel("TransientTransactionError")) {
                        throw ex;
                    }
                    log.warn("View {}: the transaction failed ({}): {}", view.key(), MongoFailures.messageOf(ex),
                            fallback);
                    return false;
                }
                finally {
                    if (session.hasActiveTransaction()) {
                        abortQuietly(session);
                    }
                }
            }
        }

        private long currentNumber() {
            Generation current = inPlace;
            return current == null || current.isLegacy() ? 0 : current.number();
        }

        /**
         * Removes what no reader sees and this attempt must not find: with a current generation, the
         * versions added by the attempts numbered between it and this one, none of which flipped (and
         * it reopens the versions they closed); before the first generation, every version of the
         * partition numbered below this attempt — there may be none, and any there are belong to a
         * status that was lost (an application replaced the view document without its status field).
         * Only numbers below its own: were this removal to land late, after another pass took the
         * view over, it would never touch that pass's versions, which are numbered above.
         * @param own this attempt's number
         */
        private void removeLeftovers(long own, @Nullable ClientSession session,
                MongoCollection<BsonDocument> collection) {
            String partition = view.partition();
            if (inPlace == null) {
                long removed = deleteMany(collection, session, rows.versionsBefore(partition, own));
                if (removed > 0 && start.generation() != null) {
                    log.info("View {}: its first pass in target {}: the {} row version(s) of its partition there, left"
                            + " by a view that wrote it before, were removed", view.key(), view.targetCollection(),
                            removed);
                }
                else if (removed > 0) {
                    log.warn("View {}: its status names no generation but the target held {} row version(s) of it"
                            + " (was the view document replaced without its status field?): they were removed and the"
                            + " view is written again whole", view.key(), removed);
                }
                return;
            }
            long current = currentNumber();
            if (own - 1 <= current) {
                return;
            }
            long removed = deleteMany(collection, session, rows.addedBetween(partition, current, own));
            BsonDocument closedByThem = rows.closedBetween(partition, current, own);
            long reopened = session == null
                    ? collection.updateMany(closedByThem, TargetRows.reopen()).getModifiedCount()
                    : collection.updateMany(session, closedByThem, TargetRows.reopen()).getModifiedCount();
            if (removed > 0 || reopened > 0) {
                log.info("View {}: undid an attempt that did not flip: removed {} and reopened {} row version(s)",
                        view.key(), removed, reopened);
            }
        }

        /**
         * Sends a group of changes under the lease. With transactions, the group and a renewal of the
         * lease commit together: were another pass to take the view over first, the renewal finds the
         * lease gone (or conflicts with the take) and nothing of the group lands — a pass paused past
         * its lease can never make its versions visible. Without, it renews first (but right after
         * taking the lease), and a pause between the renewal and the write can still land the group
         * late; the attempt finds out at its next renewal or flip and undoes its number (see
         * {@link #abandon}).
         */
        private void writeGroup(boolean renewFirst) throws ViewRunException, PassSupersededException {
            if (pending() == 0) {
                return;
            }
            groups++;
            if (groupsInTransactions) {
                pauses.beforeGroup(groups);
                if (writeGroupInTransaction()) {
                    return;
                }
            }
            if (renewFirst) {
                renew();
            }
            if (!groupsInTransactions) {
                pauses.beforeGroup(groups);
            }
            send(target, null);
            added.clear();
            closed.clear();
        }

        /**
         * A group and a renewal of the lease in one transaction.
         * @return false when the transaction failed for a reason that calls for groups without one
         */
        private boolean writeGroupInTransaction() throws ViewRunException, PassSupersededException {
            try {
                boolean committed = inTransaction((session, targetInSession) -> {
                    if (!leases.renew(session, transactionsViews.collection(), view, owner, serverTime)) {
                        throw new PassSupersededException("the pass lost its lease");
                    }
                    send(targetInSession, session);
                }, "its groups go without one, fenced by the lease alone");
                groupsInTransactions = committed;
                return committed;
            }
            catch (PassSupersededException ex) {
                // The lease went to another, or its take conflicted with this group: this attempt never flips
                lost = true;
                throw ex;
            }
        }

        /**
         * Sends the pending changes as one unordered bulk write, in a transaction when given one; the
         * caller lets go of them once they are written for good.
         */
        private void send(MongoCollection<BsonDocument> collection, @Nullable ClientSession session)
                throws ViewRunException {
            if (pending() == 0) {
                return;
            }
            List<WriteModel<BsonDocument>> writes = new ArrayList<>(pending());
            rows.addWrites(writes, view.partition(), closed, added, id, currentNumber(), generation);
            try {
                if (session == null) {
                    collection.bulkWrite(writes, UNORDERED);
                }
                else {
                    collection.bulkWrite(session, writes, UNORDERED);
                }
            }
            catch (MongoException ex) {
                if (MongoFailures.isInfrastructure(ex) || session != null) {
                    throw ex;
                }
                throw new ViewRunException("the write of a group of rows failed: " + MongoFailures.messageOf(ex));
            }
        }

        private void renew() throws PassSupersededException {
            if (!leases.renew(view, owner, serverTime)) {
                lost = true;
                throw new PassSupersededException("the pass lost its lease");
            }
        }

        /** The rows of an engine before row versions go once the first versioned generation is current. */
        private void removeRowsBeforeVersions() {
            try {
                long removed = target.deleteMany(rows.beforeVersions(view.partition())).getDeletedCount();
                if (removed > 0) {
                    log.info("View {}: removed {} row(s) of the format before row versions", view.key(), removed);
                }
            }
            catch (MongoException ex) {
                // Readers no longer see them; the next first-versions check is the next rebuild's.
                log.warn("View {}: the rows of the format before row versions were not removed: {}", view.key(),
                        MongoFailures.messageOf(ex));
            }
        }

        /**
         * A pass that fails ends its lease; what it wrote no reader sees, and the next attempt undoes
         * it. An attempt that knows it lost the view to another pass also undoes its own number: a
         * group it landed late (without transactions) is visible to that pass's readers, and the next
         * attempt looks only above the generation. Its number never flips, so removing the versions
         * it added and reopening those it closed is right whenever it runs — its closes only ever hit
         * versions still open (see {@link TargetRows#close}). Not when the outcome is unknown (a
         * failure of the deployment while flipping): the flip may have landed.
         */
        void abandon() {
            if (!leased) {
                return;
            }
            if (lost) {
                undoOwnNumber();
            }
            try {
                leases.release(view, owner);
            }
            catch (RuntimeException ex) {
                log.warn("View {}: the lease of a failed pass could not be released; it ends on its own: {}",
                        view.key(), ex.toString());
            }
        }

        private void undoOwnNumber() {
            String partition = view.partition();
            pauses.beforeUndo(generation);
            try {
                long removed = target.deleteMany(rows.addedBy(partition, generation)).getDeletedCount();
                long reopened = target.updateMany(rows.closedBy(partition, generation), TargetRows.reopen())
                    .getModifiedCount();
                if (removed > 0 || reopened > 0) {
                    log.info("View {}: the pass lost its lease to another; it undid its attempt {}: removed {} and"
                            + " reopened {} row version(s)", view.key(), generation, removed, reopened);
                }
            }
            catch (RuntimeException ex) {
                log.warn("View {}: a pass that lost its lease could not undo its attempt {} ({}); the reconciler"
                        + " repairs what it left", view.key(), generation, ex.toString());
            }
        }
    }

    private static long deleteMany(MongoCollection<BsonDocument> collection, @Nullable ClientSession session,
            BsonDocument filter) {
        return (session == null ? collection.deleteMany(filter) : collection.deleteMany(session, filter))
            .getDeletedCount();
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
