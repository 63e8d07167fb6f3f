package dev.materializer.core.write;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.mongodb.MongoException;
import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.client.ClientSession;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.WriteModel;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.WriteMode;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.server.EngineConcerns;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.ViewKey;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the passes of several views of one definition and one target — one view per partition,
 * all key-scoped or all whole — in a fixed number of commands, whatever the number of views: one read of their
 * statuses, one sweep, one aggregate (a {@code $facet} with each view's guarded, restricted
 * pipeline as a branch, behind one {@code $match} that is the union of the branches' leading ones),
 * one read of their stored rows, one count when views grow, and then, without transactions, one
 * bulk take of their leases, one bulk write of every row version and one bulk of their flips; with
 * transactions, the flips and the rows in one transaction. Views whose results are unchanged are
 * confirmed in one bulk. Whole passes hold every result and stored row in memory, so a batch of them
 * runs only while both are at most one group ({@value TargetRows#GROUP_SIZE} rows); a larger one is
 * handed back whole.
 *
 * <p>What it guarantees, view by view, exactly what {@link VersionedWriter} guarantees for one: each
 * flip and confirmation is that view's own compare-and-set on its generation and write version (and
 * its own lease), so a view that gave way gives way alone; each view's versions are numbered with its
 * own attempt, so a reader of each view sees one whole generation before or after its flip, never a
 * mixed state. A bulk tells only how many of its writes matched; when fewer than all did, one read of
 * the statuses tells which (a flip landed when the status names the attempt's number). A view the
 * batch cannot prove it handles exactly as a pass of its own would — a status that is not plain (no
 * versioned generation here, an attempt that did not flip, a live lease), a result outside its keys,
 * a merge or a check that fails, more changes than one group — is handed back untouched, and the
 * caller runs it alone: the batch only ever saves commands, it never decides differently.
 *
 * <p>Thread-safe; each batch belongs to one pass thread.
 */
final class BatchedWriter {

    private static final Logger log = LoggerFactory.getLogger(BatchedWriter.class);

    private static final BulkWriteOptions UNORDERED = new BulkWriteOptions().ordered(false);

    private final MongoDatabase database;

    private final @Nullable MongoClient transactions;

    private final StatusStore statuses;

    private final ResultReader reader;

    private final TargetRows rows;

    private final RowHasher hasher;

    private final ViewLeases leases;

    private final GenerationFlip flip;

    private final ViewDocuments views;

    private final GenerationSweeper sweeper;

    private final WriteSettings options;

    /** Runs between the read of the starting statuses and what the batch decides from them; nothing but in tests. */
    private final Runnable afterStartingStatuses;

    BatchedWriter(MongoDatabase database, @Nullable MongoClient transactions, WriteSettings options,
            StatusStore statuses, ResultReader reader, TargetRows rows, RowHasher hasher, ViewLeases leases,
            GenerationFlip flip, ViewDocuments views, GenerationSweeper sweeper, Runnable afterStartingStatuses) {
        this.afterStartingStatuses = afterStartingStatuses;
        this.database = database;
        this.transactions = transactions;
        this.options = options;
        this.statuses = statuses;
        this.reader = reader;
        this.rows = rows;
        this.hasher = hasher;
        this.leases = leases;
        this.flip = flip;
        this.views = views;
        this.sweeper = sweeper;
    }

    /**
     * Runs the batch.
     * @param members views of one definition and one target, each of another partition, each with its
     *     key scope
     * @return the reports of the views it ran, and the members it handed back to run alone
     * @throws MongoException when the deployment fails; nothing any reader sees was written then
     */
    BatchRun write(List<BatchMember> members) {
        long started = System.nanoTime();
        List<BatchMember> handedBack = new ArrayList<>();
        Map<ViewKey, PassReport> reports = new LinkedHashMap<>();
        List<Member> plain = startingStatuses(members, handedBack);
        if (plain.size() < 2) {
            plain.forEach(member -> handedBack.add(member.asked));
            return new BatchRun(reports, handedBack);
        }
        String target = plain.get(0).view().targetCollection();
        Map<ViewDefinition, ViewStatus> swept = new LinkedHashMap<>();
        plain.forEach(member -> swept.put(member.view(), member.start));
        sweeper.sweepOnce(target, swept, plain.get(0).serverTime.read());
        List<Member> merged;
        try {
            merged = merge(plain, handedBack);
        }
        catch (ViewRunException ex) {
            // The aggregate failed as a whole (a branch's pipeline, a result over 16 MB): each view alone tells
            log.debug("A batch of {} views of target {} runs view by view: {}", plain.size(), target, ex.getMessage());
            plain.forEach(member -> handedBack.add(member.asked));
            return new BatchRun(reports, handedBack);
        }
        merged = withinMaxRows(merged, handedBack);
        for (Member member : merged) {
            member.batch = merged.size();
        }
        List<Member> unchanged = new ArrayList<>();
        List<Member> changed = new ArrayList<>();
        int changes = 0;
        // One group, as a lone pass writes its first; with transactions, what one transaction may take
        int most = transactions == null ? TargetRows.GROUP_SIZE : Math.min(TargetRows.GROUP_SIZE, options.maxTransactionRows());
        for (Member member : merged) {
            if (member.pending() == 0) {
                unchanged.add(member);
            }
            else if (changes + member.pending() <= most) {
                changes += member.pending();
                changed.add(member);
            }
            else {
                handedBack.add(member.asked);
            }
        }
        confirm(unchanged, started, reports);
        if (transactions != null) {
            if (!flipInTransaction(changed, started, reports)) {
                changed.forEach(member -> handedBack.add(member.asked));
            }
        }
        else {
            flipUnderLeases(changed, started, reports);
        }
        return new BatchRun(reports, handedBack);
    }

    /** The members whose statuses a batch handles as a pass of their own would; the others are handed back. */
    private List<Member> startingStatuses(List<BatchMember> members, List<BatchMember> handedBack) {
        List<ViewDefinition> asked = new ArrayList<>(members.size());
        members.forEach(member -> asked.add(member.view()));
        Map<ViewKey, StatusStore.StatusAtServerTime> read = statuses.readAtServerTime(asked);
        afterStartingStatuses.run();
        List<Member> plain = new ArrayList<>();
        for (BatchMember member : members) {
            StatusStore.StatusAtServerTime status = read.get(member.view().key());
            Generation current = status == null ? null : status.status().generation();
            if (status == null || current == null || current.isLegacy() || status.arrived(member.view())
                    || status.leaseIsLive() || status.status().attempts() > current.number()) {
                // No versions here yet, a place it arrived in, a live lease, an attempt to undo: the single path's work
                handedBack.add(member);
            }
            else {
                plain.add(new Member(member, status.status(), status.serverTime()));
            }
        }
        return plain;
    }

    /**
     * Runs the branches in one aggregate and merges each view's rows with its stored ones, read in
     * one query. A member whose merge fails is handed back.
     * @throws ViewRunException when the aggregate fails as a whole
     */
    private List<Member> merge(List<Member> members, List<BatchMember> handedBack) throws ViewRunException {
        BsonDocument facets = new BsonDocument();
        List<BsonValue> leading = new ArrayList<>();
        List<Member> runnable = new ArrayList<>();
        for (Member member : members) {
            try {
                KeyScope scope = member.asked.scope();
                List<BsonDocument> branch = reader.guarded(member.view(),
                        scope == null ? member.view().pipeline() : scope.pipeline(), Map.of());
                leading.add(leadingMatch(branch, member.view()));
                facets.append(Integer.toString(runnable.size()), new BsonArray(branch));
                runnable.add(member);
            }
            catch (ViewRunException ex) {
                handedBack.add(member.asked);
            }
        }
        if (runnable.size() < 2) {
            runnable.forEach(member -> handedBack.add(member.asked));
            return List.of();
        }
        List<BsonDocument> pipeline = List.of(new BsonDocument("$match", new BsonDocument("$or", new BsonArray(leading))),
                new BsonDocument("$facet", facets));
        List<BsonDocument> result = reader.aggregate(runnable.get(0).view().primarySource(), pipeline);
        BsonDocument branches = result.isEmpty() ? new BsonDocument() : result.get(0);
        boolean whole = runnable.get(0).asked.scope() == null;
        if (whole && rowsIn(branches) > TargetRows.GROUP_SIZE) {
            // Whole passes batch while they are small: a large view costs its rows, not its round trips
            throw new ViewRunException("the whole results of the batch have more than " + TargetRows.GROUP_SIZE + " rows");
        }
        Map<String, List<BsonDocument>> stored = storedRows(runnable, whole);
        List<Member> merged = new ArrayList<>();
        for (int i = 0; i < runnable.size(); i++) {
            Member member = runnable.get(i);
            BsonValue branch = branches.get(Integer.toString(i));
            List<BsonDocument> rowsOf = new ArrayList<>();
            if (branch != null && branch.isArray()) {
                branch.asArray().forEach(row -> rowsOf.add(row.asDocument()));
            }
            try {
                new RowMerge(reader.rowsOf(member.view(), rowsOf),
                        StoredRows.of(stored.getOrDefault(member.view().partition(), List.of()), !whole), hasher)
                    .run(member);
                merged.add(member);
            }
            catch (ViewRunException | PassSupersededException ex) {
                // Outside its keys, two rows with one _id, a target id strategy that refuses: its own pass says so
                handedBack.add(member.asked);
            }
        }
        return merged;
    }

    private static int rowsIn(BsonDocument branches) {
        int rows = 0;
        for (BsonValue branch : branches.values()) {
            rows += branch.isArray() ? branch.asArray().size() : 0;
        }
        return rows;
    }

    /** The conjunction of a branch's leading {@code $match} stages: the documents it can read. */
    private BsonDocument leadingMatch(List<BsonDocument> branch, ViewDefinition view) {
        List<BsonValue> matches = new ArrayList<>();
        for (BsonDocument stage : branch) {
            BsonValue match = stage.get("$match");
            if (match == null || stage.size() != 1) {
                break;
            }
            matches.add(match);
        }
        if (matches.isEmpty()) {
            // The guard always leads with the partition; this only keeps the union right if it did not
            return new BsonDocument(rows.partitionField(), new BsonString(view.partition()));
        }
        return matches.size() == 1 ? matches.get(0).asDocument() : new BsonDocument("$and", new BsonArray(matches));
    }

    /**
     * The stored versions of every member's row ids in its current generation (every row, for whole
     * passes), per partition, in {@code _viewRow} order: whole for key-scoped passes (their keys'
     * few versions), so that their closes go in the same command as the new versions; ids and hashes
     * for whole passes.
     * @throws ViewRunException when whole passes store more rows than one group: they run alone
     */
    private Map<String, List<BsonDocument>> storedRows(List<Member> members, boolean whole) throws ViewRunException {
        List<BsonValue> filters = new ArrayList<>(members.size());
        for (Member member : members) {
            BsonDocument filter = rows.inGeneration(member.view().partition(), member.start.generation());
            KeyScope scope = member.asked.scope();
            if (scope != null) {
                filter.append(ViewFilter.ROW_FIELD, new BsonDocument("$in", new BsonArray(scope.rowIds())));
            }
            filters.add(filter);
        }
        FindIterable<BsonDocument> found = target(members.get(0).view()).find(new BsonDocument("$or", new BsonArray(filters)))
            .sort(Sorts.ascending(rows.partitionField(), ViewFilter.ROW_FIELD));
        if (whole) {
            found = found.projection(Projections.include("_id", rows.partitionField(), ViewFilter.ROW_FIELD,
                    ViewFilter.HASH_FIELD))
                .limit(TargetRows.GROUP_SIZE + 1);
        }
        Map<String, List<BsonDocument>> byPartition = new HashMap<>();
        int read = 0;
        for (BsonDocument version : found) {
            read++;
            BsonValue partition = version.get(rows.partitionField());
            if (partition != null && partition.isString()) {
                byPartition.computeIfAbsent(partition.asString().getValue(), key -> new ArrayList<>()).add(version);
            }
        }
        if (whole && read > TargetRows.GROUP_SIZE) {
            throw new ViewRunException("the views of the batch store more than " + TargetRows.GROUP_SIZE + " rows");
        }
        return byPartition;
    }

    /**
     * The members that keep to {@code maxRows}; those that grow are counted in one aggregate, and one
     * that would pass the limit is handed back (its own pass errors it).
     */
    private List<Member> withinMaxRows(List<Member> members, List<BatchMember> handedBack) {
        List<BsonValue> growing = new ArrayList<>();
        for (Member member : members) {
            // A whole result is counted as it is read (maxRows); a key-scoped one only adds to the stored rows
            if (member.asked.scope() != null && member.rowsAdded - member.rowsRemoved > 0) {
                growing.add(rows.inGeneration(member.view().partition(), member.start.generation()));
            }
        }
        if (growing.isEmpty()) {
            return members;
        }
        Map<String, Long> counts = new HashMap<>();
        target(members.get(0).view()).aggregate(List.of(
                new BsonDocument("$match", new BsonDocument("$or", new BsonArray(growing))),
                new BsonDocument("$group", new BsonDocument("_id", new BsonString("$" + rows.partitionField()))
                    .append("n", new BsonDocument("$sum", new BsonInt32(1))))))
            .forEach(count -> {
                if (count.get("_id") != null && count.get("_id").isString() && count.get("n").isNumber()) {
                    counts.put(count.getString("_id").getValue(), count.getNumber("n").longValue());
                }
            });
        List<Member> within = new ArrayList<>();
        for (Member member : members) {
            long growth = member.rowsAdded - member.rowsRemoved;
            if (member.asked.scope() != null && growth > 0 && counts.getOrDefault(member.view().partition(), 0L) + growth > options.maxRows()) {
                handedBack.add(member.asked);
            }
            else {
                within.add(member);
            }
        }
        return within;
    }

    /** Confirms the unchanged members in one bulk; a member whose confirmation did not match gave way. */
    private void confirm(List<Member> unchanged, long started, Map<ViewKey, PassReport> reports) {
        if (unchanged.isEmpty()) {
            return;
        }
        List<WriteModel<BsonDocument>> writes = new ArrayList<>();
        for (Member member : unchanged) {
            writes.add(flip.confirmModel(member.view(), member.start.generation(), member.start.version(),
                    member.asked.note()));
        }
        // Only a whole match proves each one: a version one past the start may be another pass's
        // confirmation, so after a partial match every member gives way and runs again (never one pass less)
        boolean confirmed = views.collection().bulkWrite(writes, UNORDERED).getMatchedCount() == unchanged.size();
        for (Member member : unchanged) {
            landed(member, confirmed);
            reports.put(member.view().key(), confirmed ? report(member, PassOutcome.UNCHANGED, WriteMode.GENERATION, started)
                    : gaveWay(member, "another pass wrote a view of the batch while it found them unchanged", started));
        }
    }

    /**
     * Takes the leases of the changed members in one bulk, writes their versions in one bulk, and
     * flips them in one bulk. A member whose take or flip did not match gave way; one that lost its
     * flip undoes its number, as a pass of its own does.
     */
    private void flipUnderLeases(List<Member> changed, long started, Map<ViewKey, PassReport> reports) {
        if (changed.isEmpty()) {
            return;
        }
        List<WriteModel<BsonDocument>> takes = new ArrayList<>();
        for (Member member : changed) {
            takes.add(leases.takeModel(member.view(), member.owner, member.start, member.serverTime));
        }
        BulkWriteResult taken = views.collection().bulkWrite(takes, UNORDERED);
        List<Member> leased = new ArrayList<>();
        Map<ViewKey, ViewStatus> now = taken.getMatchedCount() == changed.size() ? null : reread(changed);
        for (Member member : changed) {
            ViewStatus status = now == null ? null : now.get(member.view().key());
            if (now == null || (status != null && status.lease() != null && member.owner.equals(status.lease().owner()))) {
                member.generation = member.start.attempts() + 1;
                leased.add(member);
            }
            else {
                landed(member, false);
                reports.put(member.view().key(),
                        gaveWay(member, "a pass of another instance holds the view, or wrote it since this pass started", started));
            }
        }
        if (leased.isEmpty()) {
            return;
        }
        try {
            sendRows(leased, null, target(leased.get(0).view()));
        }
        catch (RuntimeException ex) {
            // Nothing of it is visible (every version is numbered above the generations readers read); the
            // next attempt of each view removes what landed
            leased.forEach(this::releaseQuietly);
            throw ex instanceof MongoException mongo && MongoFailures.isInfrastructure(mongo) ? mongo
                    : new MongoException("a batched write of row versions failed: " + ex.getMessage(), ex);
        }
        List<WriteModel<BsonDocument>> flips = new ArrayList<>();
        for (Member member : leased) {
            flips.add(flip.flipModel(member.view(), member.start, member.serverTime.read(), member.generation,
                    member.owner, member.asked.note()));
        }
        BulkWriteResult flipped = views.collection().bulkWrite(flips, UNORDERED);
        Map<ViewKey, ViewStatus> after = flipped.getMatchedCount() == leased.size() ? null : reread(leased);
        for (Member member : leased) {
            ViewStatus status = after == null ? null : after.get(member.view().key());
            Generation generation = status == null ? null : status.generation();
            boolean landed = after == null || (generation != null && !generation.isLegacy()
                    && generation.number() == member.generation);
            landed(member, landed);
            if (landed) {
                reports.put(member.view().key(), report(member, PassOutcome.CHANGED, WriteMode.GENERATION, started));
            }
            else {
                undoOwnNumber(member);
                reports.put(member.view().key(),
                        gaveWay(member, "the pass lost its lease, or another pass changed the generation of the view", started));
            }
        }
    }

    /**
     * Writes the changed members' flips and versions in one transaction: the flips first, so a pass
     * taking a lease meanwhile is a write conflict. All or nothing: when one flip does not match, or
     * the transaction fails, nothing is written and every member runs alone.
     * @return false when the members must run alone
     */
    private boolean flipInTransaction(List<Member> changed, long started, Map<ViewKey, PassReport> reports) {
        MongoClient client = transactions;
        if (changed.isEmpty() || client == null) {
            return true;
        }
        MongoDatabase inTransactions = client.getDatabase(database.getName()).withCodecRegistry(database.getCodecRegistry());
        MongoCollection<BsonDocument> viewsInSession = inTransactions.getCollection(views.collection().getNamespace()
            .getCollectionName(), BsonDocument.class);
        MongoCollection<BsonDocument> targetInSession = inTransactions.getCollection(
                changed.get(0).view().targetCollection(), BsonDocument.class);
        try (ClientSession session = client.startSession()) {
            session.startTransaction(EngineConcerns.TRANSACTION);
            try {
                List<WriteModel<BsonDocument>> flips = new ArrayList<>();
                for (Member member : changed) {
                    member.generation = member.start.attempts() + 1;
                    flips.add(flip.flipInTransactionModel(member.view(), member.start, member.serverTime.read(),
                            member.asked.note()));
                }
                if (viewsInSession.bulkWrite(session, flips, UNORDERED).getMatchedCount() != changed.size()) {
                    session.abortTransaction();
                    return false;
                }
                sendRows(changed, session, targetInSession);
                session.commitTransaction();
            }
            catch (MongoException ex) {
                if (MongoFailures.isInfrastructure(ex) && !ex.hasErrorLabel("TransientTransactionError")
                        && !MongoFailures.isWriteConflict(ex)) {
                    throw ex;
                }
                log.debug("A batch of {} views runs view by view: its transaction failed ({})", changed.size(),
                        MongoFailures.messageOf(ex));
                return false;
            }
            finally {
                if (session.hasActiveTransaction()) {
                    try {
                        session.abortTransaction();
                    }
                    catch (RuntimeException ex) {
                        // The server aborts an abandoned transaction on its own.
                    }
                }
            }
        }
        for (Member member : changed) {
            landed(member, true);
            reports.put(member.view().key(), report(member, PassOutcome.CHANGED, WriteMode.TRANSACTION, started));
        }
        return true;
    }

    /** Every change of the members as one unordered bulk write to their target. */
    private void sendRows(List<Member> members, @Nullable ClientSession session, MongoCollection<BsonDocument> target) {
        List<WriteModel<BsonDocument>> writes = new ArrayList<>();
        for (Member member : members) {
            long current = member.start.generation() == null ? 0 : member.start.generation().number();
            rows.addWrites(writes, member.view().partition(), member.closed, member.added, member.attemptId, current,
                    member.generation);
        }
        if (session == null) {
            target.bulkWrite(writes, UNORDERED);
        }
        else {
            target.bulkWrite(session, writes, UNORDERED);
        }
    }

    private void undoOwnNumber(Member member) {
        String partition = member.view().partition();
        try {
            MongoCollection<BsonDocument> target = target(member.view());
            target.deleteMany(rows.addedBy(partition, member.generation));
            target.updateMany(rows.closedBy(partition, member.generation), TargetRows.reopen());
        }
        catch (RuntimeException ex) {
            log.warn("View {}: a batched pass that lost its flip could not undo its attempt {} ({}); the next attempt"
                    + " or the reconciler repairs what it left", member.view().key(), member.generation, ex.toString());
        }
        releaseQuietly(member);
    }

    private void releaseQuietly(Member member) {
        try {
            leases.release(member.view(), member.owner);
        }
        catch (RuntimeException ex) {
            log.debug("View {}: the lease of a batched pass ends on its own: {}", member.view().key(), ex.toString());
        }
    }

    /** The statuses of the members as they stand now, in one read. */
    private Map<ViewKey, ViewStatus> reread(List<Member> members) {
        List<ViewDefinition> of = new ArrayList<>(members.size());
        members.forEach(member -> of.add(member.view()));
        Map<ViewKey, ViewStatus> now = new HashMap<>();
        statuses.readAtServerTime(of).forEach((key, status) -> now.put(key, status.status()));
        return now;
    }

    private static void landed(Member member, boolean landed) {
        PassStatus note = member.asked.note();
        if (note != null) {
            note.landed(landed);
        }
    }

    private MongoCollection<BsonDocument> target(ViewDefinition view) {
        return database.getCollection(view.targetCollection(), BsonDocument.class);
    }

    private static PassReport report(Member member, PassOutcome outcome, WriteMode mode, long started) {
        // The note says it ran in a batch: the endpoint shows it with the view's last pass
        KeyScope scope = member.asked.scope();
        String batch = "in a batch of " + member.batch + " views";
        return new PassReport(member.view().key(), mode, outcome, member.rowsWritten, member.rowsRemoved,
                Duration.ofNanos(System.nanoTime() - started), null)
            .scoped(scope == null ? PassScope.FULL : PassScope.KEYS, scope == null ? batch : scope.description() + ", " + batch);
    }

    private static PassReport gaveWay(Member member, String why, long started) {
        return new PassReport(member.view().key(), WriteMode.GENERATION, PassOutcome.SUPERSEDED, 0, 0,
                Duration.ofNanos(System.nanoTime() - started), why);
    }

    /** One member's merge: what it adds and closes. Not thread-safe. */
    private final class Member implements RowMerge.Visitor {

        private final BatchMember asked;

        private final ViewStatus start;

        private final ServerTime serverTime;

        private final String owner;

        private final ObjectId attemptId = new ObjectId();

        /** The id keys of the rows a key-scoped pass may write; null for a whole pass. */
        private final @Nullable Set<String> scope;

        private final List<ResultRow> added = new ArrayList<>();

        private final List<StoredRows.Stored> closed = new ArrayList<>();

        private long generation;

        private long rowsWritten;

        private long rowsRemoved;

        private long rowsAdded;

        private boolean verified;

        /** How many views the batch ran together, for the report. */
        private int batch;

        Member(BatchMember asked, ViewStatus start, ServerTime serverTime) {
            this.asked = asked;
            this.start = start;
            this.serverTime = serverTime;
            this.owner = options.instanceId() + "/" + attemptId.toHexString();
            KeyScope keys = asked.scope();
            this.scope = keys == null ? null : new HashSet<>();
            if (keys != null) {
                keys.rowIds().forEach(id -> scope.add(hasher.idKey(id)));
            }
        }

        ViewDefinition view() {
            return asked.view();
        }

        int pending() {
            return added.size() + closed.size();
        }

        @Override
        public void both(ResultRow row, StoredRows.Stored stored) throws ViewRunException {
            requireInScope(row);
            if (!row.hash().equals(stored.hash())) {
                closed.add(stored);
                add(row);
            }
        }

        @Override
        public void onlyInResult(ResultRow row) throws ViewRunException {
            rowsAdded++;
            add(row);
        }

        @Override
        public void onlyStored(StoredRows.Stored stored) {
            closed.add(stored);
            rowsRemoved++;
        }

        private void add(ResultRow row) throws ViewRunException {
            requireInScope(row);
            if (!verified) {
                rows.verify(row.id(), view().partition());
                verified = true;
            }
            added.add(row);
            rowsWritten++;
        }

        private void requireInScope(ResultRow row) throws OutsideKeyScopeException {
            if (scope != null && !scope.contains(hasher.idKey(row.id()))) {
                throw new OutsideKeyScopeException(row.id());
            }
        }
    }
}
