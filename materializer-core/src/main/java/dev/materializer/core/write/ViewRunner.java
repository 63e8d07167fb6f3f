package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import com.mongodb.ClientSessionOptions;
import com.mongodb.MongoException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassScope;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.guard.ScopeViolationException;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewKey;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonValue;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one view once: its guarded pipeline, the diff of the result with the stored rows by hash, and
 * the write of the next generation of row versions ({@link VersionedWriter}) — in one transaction
 * when the deployment offers transactions and the diff is small, else in groups under a lease,
 * flipped in by a compare-and-set.
 *
 * <p>Before each run it reads the view's status with the server's time — the only read of it the
 * pass makes: the leases carry that time forward ({@link ServerTime}) — gives way to a live lease
 * of another pass, and removes the row versions no reader needs any more (when the oldest readable
 * generation moved since it last did). Given a {@link PassStatus}, the ok state of the pass goes in
 * the compare-and-set that ends it. The first pass of a view
 * in its place — never run, or given another target or partition since its generation was written
 * ({@link dev.materializer.core.GenerationPlace}) — replaces every version of its partition
 * there, so it first checks that no other view document holds that target there
 * ({@link TargetHolder}), and is errored, naming the holder, when one does.
 *
 * <p>Thread-safe. The engine never runs the same view twice at once in one instance; several
 * instances may, and the leases and the compare-and-set flip keep them apart.
 */
public final class ViewRunner {

    /**
     * A key-scoped pass of at most this many keys reads their stored versions with its status, in
     * one reply document; a larger one reads them from the target.
     */
    private static final int KEYS_READ_WITH_STATUS = 100;

    /** False once the server refused a status read with the stored versions of a pass's keys. */
    private volatile boolean keysReadWithStatus = true;

    private static final Logger log = LoggerFactory.getLogger(ViewRunner.class);

    /**
     * The documents a key query reads per batch: projected on the key paths they are small, and a
     * planner that stops at its bound of keys has read at most one batch it did not need.
     */
    private static final int KEY_QUERY_BATCH = 1024;

    private final MongoDatabase database;

    private final WriteSettings options;

    private final StatusStore statuses;

    private final TargetIndexes indexes;

    private final GenerationSweeper sweeper;

    private final VersionedWriter writer;

    private final BatchedWriter batches;

    private final GenerationFlip flip;

    /** The client of sessions, where the deployment has them (it has transactions). */
    private final @Nullable MongoClient sessions;

    private final ViewVerifier verifier;

    private final Arrival arrival;

    private final LeftRows leftRows;

    private final ScopeGuard guard;

    /** Whether the deployment has transactions: small diffs are written in one. */
    private final boolean transactional;

    /** Runs between the read of the starting status and what the pass decides from it; nothing but in tests. */
    private final Runnable afterStartingStatus;

    /**
     * Creates a runner.
     * @param database the database of the views, sources and targets
     * @param transactionsClient the client of {@code database}, to write in transactions; null when
     *     the deployment has no transactions
     * @param options the writers' settings
     * @param guard the scope guard of pipelines
     * @param hasher the hasher of rows
     */
    public ViewRunner(MongoDatabase database, @Nullable MongoClient transactionsClient, WriteSettings options,
            ScopeGuard guard, RowHasher hasher) {
        this(database, transactionsClient, options, guard, hasher, () -> {
        });
    }

    // Visible for testing: another instance's pass between this pass's status read and its decisions
    ViewRunner(MongoDatabase database, @Nullable MongoClient transactionsClient, WriteSettings options,
            ScopeGuard guard, RowHasher hasher, Runnable afterStartingStatus) {
        this.afterStartingStatus = afterStartingStatus;
        this.database = database;
        this.options = options;
        this.sessions = transactionsClient;
        this.guard = guard;
        this.transactional = transactionsClient != null;
        this.statuses = new StatusStore(database, options);
        this.indexes = new TargetIndexes(database, options.partitionField());
        TargetRows rows = new TargetRows(options.partitionField(), options.targetId(), hasher);
        ReadableGenerations readable = new ReadableGenerations(options.generationGrace());
        this.sweeper = new GenerationSweeper(database, rows, readable);
        this.arrival = new Arrival(database, options, rows);
        this.leftRows = new LeftRows(database, options, rows);
        ResultReader reader = new ResultReader(database, options, guard, hasher, rows);
        this.verifier = new ViewVerifier(database, statuses, reader, rows, hasher);
        ViewDocuments views = new ViewDocuments(database, options);
        GenerationFlip flip = new GenerationFlip(views, readable);
        this.flip = flip;
        ViewLeases leases = new ViewLeases(views, options.passLease(), flip);
        this.writer = new VersionedWriter(database, transactionsClient, options, reader, rows, hasher, leases, flip);
        this.batches = new BatchedWriter(database, transactionsClient, options, statuses, reader, rows, hasher,
                leases, flip, views, sweeper, afterStartingStatus);
    }

    /**
     * Runs the view once.
     * @param view the view
     * @return what the pass did: {@code ERRORED} (with the error; also for a request MongoDB refused
     *     for what it asked), {@code SUPERSEDED} (gave way; the error says why), {@code CHANGED} or
     *     {@code UNCHANGED}
     * @throws MongoException only when the deployment fails (unreachable, no primary, no majority),
     *     never for a problem of the view
     */
    public PassReport run(ViewDefinition view) {
        return run(view, null);
    }

    /**
     * Runs the view once, recomputing only the rows of some keys when given a key scope. A view
     * without a versioned generation yet, and a scope the result does not keep to, run whole.
     * @param view the view
     * @param scope the keys to recompute, or null for the whole view
     * @return what the pass did, and whether it was key-scoped
     * @throws MongoException only when the deployment fails
     */
    public PassReport run(ViewDefinition view, @Nullable KeyScope scope) {
        return run(view, scope, null, true);
    }

    /**
     * Runs the view once, as above, in as few round trips as it can: given a note, the ok state of
     * the pass goes in the compare-and-set that ends it (its flip or confirmation) and the note keeps
     * the status that left ({@link PassStatus#written()}); and the current generations of the other
     * views' targets are read only when the view reads one.
     * @param note what the status says once the pass ends ok; null to write the result only
     * @param readsViewTargets whether any collection the view reads is the target of a view document of
     *     its partition (valid or not, as the registry knows them): only then does the guard need their
     *     current generations, read from the view documents
     * @return what the pass did
     * @throws MongoException only when the deployment fails
     */
    public PassReport run(ViewDefinition view, @Nullable KeyScope scope, @Nullable PassStatus note,
            boolean readsViewTargets) {
        long started = System.nanoTime();
        WriteMode mode = WriteMode.NONE;
        try {
            indexes.ensure(view.targetCollection());
            Start start = start(view, scope);
            String holder = start.holder();
            if (holder != null) {
                return errored(view, mode, started, TargetHolder.refusal(view, holder));
            }
            StatusStore.StatusAtServerTime status = start.status();
            Generation current = status.status().generation();
            boolean arrived = status.arrived(view);
            Map<String, @Nullable Generation> generations = generationsToGuard(view, readsViewTargets);
            mode = transactional ? WriteMode.TRANSACTION : WriteMode.GENERATION;
            // A view without versions of its own yet is written whole: its keys have no rows to replace
            KeyScope keys = current == null || current.isLegacy() || arrived ? null : scope;
            WriteOutcome outcome;
            try {
                outcome = writer.write(view, status.status(), status.serverTime(), generations, keys, arrived, note,
                        status.versionsOfKeys());
            }
            catch (OutsideKeyScopeException ex) {
                log.warn("View {}: {}; it runs whole", view.key(), ex.getMessage());
                return run(view, null, note, readsViewTargets).scoped(PassScope.FULL, ex.getMessage());
            }
            catch (ViewRunException ex) {
                return scoped(errored(view, mode, started, ex.getMessage()), scope, keys);
            }
            mode = outcome.mode();
            return scoped(confirmed(view, outcome, current, status.status().version(), note, started), scope, keys);
        }
        catch (PassSupersededException ex) {
            log.debug("View {}: {}; a later pass follows", view.key(), ex.getMessage());
            return new PassReport(view.key(), mode, PassOutcome.SUPERSEDED, 0, 0, since(started), ex.getMessage());
        }
        catch (MongoException ex) {
            // What reached here unclassified (a status read, a lease, a flip, the stored rows) is told apart now.
            return errored(view, mode, started, refusal(ex));
        }
    }

    /**
     * Where a pass starts from: the view's status, read with the server's time (and read again where
     * the steps below say). The first pass of a view in its place first checks that no other view
     * document holds its target there; when one does, it names it, and the pass goes no further.
     */
    private Start start(ViewDefinition view, @Nullable KeyScope scope) throws PassSupersededException {
        StatusStore.StatusAtServerTime status = startingStatus(view, scope);
        boolean firstHere = firstHere(view, status);
        afterStartingStatus.run();
        if (firstHere) {
            // Its first versions here replace every version of its partition: never another view's
            BsonValue holder = statuses.holderOf(view.partition(), view.targetCollection());
            if (holder != null && !ViewKey.idText(holder).equals(view.key().id())) {
                return new Start(status, ViewKey.idText(holder));
            }
            if (holder != null) {
                // Its own document holds it: another instance's pass flipped since the status was read.
                // The pass goes on from that flip, fenced as ever by its version and lease
                status = startingStatus(view);
            }
        }
        return new Start(numberedPastOrSwept(view, status), null);
    }

    /**
     * The status the pass goes on from: read again once the first pass of a view in its place has
     * numbered its attempt past what is there; else the one it read, once it swept the generations
     * no reader needs.
     */
    private StatusStore.StatusAtServerTime numberedPastOrSwept(ViewDefinition view,
            StatusStore.StatusAtServerTime status) throws PassSupersededException {
        if (firstHere(view, status) && arrival.numberPastWhatIsThere(view)) {
            // Its attempt is now numbered above what views that left the place left there (a view that
            // arrived, or a new one where another just left): it removes all of it
            return startingStatus(view);
        }
        // An arrived view's generations are of its old place: they say nothing of the rows here
        sweeper.sweepOnce(view, status.status(), status.serverNow());
        return status;
    }

    /** Whether the pass is the view's first in its place: it has no generation, or one of another place. */
    private static boolean firstHere(ViewDefinition view, StatusStore.StatusAtServerTime status) {
        return status.status().generation() == null || status.arrived(view);
    }

    /** The current generations of the other views' targets the guard needs for the view. */
    private Map<String, @Nullable Generation> generationsToGuard(ViewDefinition view, boolean readsViewTargets) {
        // A view reading no other view's target needs none of their generations: the guard scopes
        // its reads by partition alone
        return readsViewTargets ? statuses.currentGenerations(view.partition()) : Map.of();
    }

    /**
     * The status a pass starts from, and the other view document that holds the view's target in its
     * partition (null when none does, or the view's own does).
     */
    private record Start(StatusStore.StatusAtServerTime status, @Nullable String holder) {
    }

    /**
     * Runs the passes of several views of one definition and one target together — each of another
     * partition, all key-scoped or all whole — in a fixed number of round trips ({@link BatchedWriter}). Each view's
     * outcome is its own: its flip is its own compare-and-set, so one that gives way gives way alone.
     * A view the batch cannot handle exactly as its own pass would is handed back untouched, to run
     * with {@link #run(ViewDefinition, KeyScope, PassStatus, boolean)}.
     * @param members the views, with their key scopes (null for whole passes) and notes; none reads
     *     another view's target
     * @return the reports of the views it ran, and the members handed back
     * @throws MongoException only when the deployment fails; every member then runs again
     */
    public BatchRun runBatch(List<BatchMember> members) {
        if (members.size() < 2) {
            return new BatchRun(Map.of(), members);
        }
        String target = members.get(0).view().targetCollection();
        for (BatchMember member : members) {
            if (!member.view().targetCollection().equals(target)
                    || !member.view().fingerprint().equals(members.get(0).view().fingerprint())
                    || (member.scope() == null) != (members.get(0).scope() == null)) {
                throw new IllegalArgumentException("a batch is of one definition, one target and one kind of pass: "
                        + member.view().key() + " is not");
            }
        }
        indexes.ensure(target);
        try {
            return batches.write(members);
        }
        catch (MongoException ex) {
            if (MongoFailures.isInfrastructure(ex)) {
                throw ex;
            }
            // A refusal of the batch's own commands: each view alone tells whose it is
            log.debug("A batch of {} views of {} runs view by view: {}", members.size(), target,
                    MongoFailures.messageOf(ex));
            return new BatchRun(Map.of(), members);
        }
    }

    /**
     * The error of a view for a failure of MongoDB that is not the deployment's (a command the
     * server refused for what it was asked); a failure of the deployment is thrown on, to be retried.
     */
    private static String refusal(MongoException failure) {
        if (MongoFailures.isInfrastructure(failure)) {
            throw failure;
        }
        return "MongoDB refused a request of the pass: " + MongoFailures.messageOf(failure);
    }

    /** The status a pass starts from, read with the server's time; it gives way to a live lease. */
    private StatusStore.StatusAtServerTime startingStatus(ViewDefinition view) throws PassSupersededException {
        return startingStatus(view, null);
    }

    /**
     * The status a pass starts from; for a key-scoped pass of a few keys, with the stored versions of
     * its keys read in the same round trip.
     * @param scope the pass's keys, or null
     */
    private StatusStore.StatusAtServerTime startingStatus(ViewDefinition view, @Nullable KeyScope scope)
            throws PassSupersededException {
        List<BsonValue> rowIds = scope != null && scope.rowIds().size() <= KEYS_READ_WITH_STATUS
                && keysReadWithStatus ? scope.rowIds() : null;
        StatusStore.@Nullable StatusAtServerTime status;
        try {
            status = statuses.readAtServerTime(view, rowIds);
        }
        catch (MongoException ex) {
            if (rowIds == null || MongoFailures.isInfrastructure(ex)) {
                throw ex;
            }
            // A server that refuses the $lookup of the read (not one the engine supports) still runs passes
            keysReadWithStatus = false;
            log.warn("The status read with the stored versions of a pass's keys failed ({}); passes read them apart"
                    + " from now on", MongoFailures.messageOf(ex));
            status = statuses.readAtServerTime(view, null);
        }
        if (status == null) {
            throw new PassSupersededException("the view document is gone");
        }
        if (status.leaseIsLive()) {
            throw new PassSupersededException("a pass of another instance holds the view");
        }
        return status;
    }

    /**
     * Returns once the server reads at or after a cluster time: a pass woken by an event then reads
     * a state that has it, even right after a failover. A causally consistent read in a session
     * advanced to that time does it (the server waits until its majority snapshot reaches it);
     * deployments without sessions have no cluster time to wait for, and it returns at once.
     * @param clusterTime the cluster time of the newest event the pass covers
     * @throws MongoException when the server cannot reach it within {@code maxTime}
     */
    public void awaitClusterTime(BsonTimestamp clusterTime) {
        if (sessions == null) {
            return;
        }
        try (ClientSession session = sessions.startSession(
                ClientSessionOptions.builder().causallyConsistent(true).build())) {
            session.advanceOperationTime(clusterTime);
            statuses.probe(session, options.maxTime());
        }
    }

    /**
     * Reads the documents of the view's primary source in its partition that a filter matches,
     * projected: the keys a change of a foreign collection affects. They are handed over one at a
     * time from a cursor read a batch at a time, which closes as soon as the taker wants no more:
     * a key query that matches millions of documents holds one batch in memory, not its result.
     * @param view the view
     * @param filter a filter on the primary source
     * @param projection what to keep of each document
     * @param taker takes each document; false when it wants no more
     * @throws MongoException when the deployment fails, or the filter fails
     */
    public void find(ViewDefinition view, BsonDocument filter, BsonDocument projection,
            Predicate<BsonDocument> taker) {
        List<BsonDocument> stages = List.of(new BsonDocument("$match", filter), new BsonDocument("$project", projection));
        List<BsonDocument> scoped;
        try {
            scoped = guard.scope(stages, view.partition(), view.collections(), view.primarySource(), Map.of());
        }
        catch (ScopeViolationException ex) {
            throw new IllegalStateException("a key query must not need the guard's refusal: " + ex.getMessage(), ex);
        }
        try (MongoCursor<BsonDocument> cursor = database
            .getCollection(view.primarySource(), BsonDocument.class).aggregate(scoped)
            .maxTime(options.maxTime().toMillis(), TimeUnit.MILLISECONDS)
            .batchSize(KEY_QUERY_BATCH)
            .cursor()) {
            while (cursor.hasNext() && taker.test(cursor.next())) {
                // the taker keeps what it needs
            }
        }
    }

    /**
     * Compares the view's stored rows with a fresh run of its pipeline.
     * @param view the view
     * @param markEditedRows whether to mark stored rows whose content was changed behind the
     *     engine's back, so the next pass rewrites them (the only write it makes); false writes nothing
     * @return what differs, or why the pipeline could not run or MongoDB refused the comparison
     * @throws MongoException when the deployment fails
     */
    public VerifyReport verify(ViewDefinition view, boolean markEditedRows) {
        long started = System.nanoTime();
        try {
            return verifier.verify(view, markEditedRows);
        }
        catch (ViewRunException ex) {
            return new VerifyReport(view.key(), 0, 0, 0, 0, since(started), ex.getMessage());
        }
        catch (MongoException ex) {
            return new VerifyReport(view.key(), 0, 0, 0, 0, since(started), refusal(ex));
        }
    }

    /**
     * Removes the generations of the view that are no longer needed: the previous one once its grace
     * has passed (server time), and those of passes that ended.
     * @param view the view
     * @throws MongoException when the deployment fails
     */
    public void sweep(ViewDefinition view) {
        StatusStore.@Nullable StatusAtServerTime status = statuses.readAtServerTime(view);
        if (status != null) {
            sweeper.sweep(view, status.status(), status.serverNow());
        }
    }

    /**
     * Removes the generations no longer needed of several views at once (the sweeps after the flips
     * of a burst): one read of their statuses and one delete per target.
     * @param views the views
     * @throws MongoException when the deployment fails
     */
    public void sweep(List<ViewDefinition> views) {
        Map<ViewKey, StatusStore.StatusAtServerTime> read = statuses.readAtServerTime(views);
        Map<String, Map<ViewDefinition, ViewStatus>> byTarget = new LinkedHashMap<>();
        Instant serverNow = null;
        for (ViewDefinition view : views) {
            StatusStore.StatusAtServerTime status = read.get(view.key());
            if (status != null) {
                serverNow = serverNow == null ? status.serverNow() : serverNow;
                byTarget.computeIfAbsent(view.targetCollection(), key -> new LinkedHashMap<>())
                    .put(view, status.status());
            }
        }
        if (serverNow == null) {
            return;
        }
        Instant now = serverNow;
        byTarget.forEach((target, statusesOfTarget) -> sweeper.sweepOnce(target, statusesOfTarget, now));
    }

    /**
     * Removes the rows views of a partition left in a target they no longer write (see
     * {@link LeftRows}), unless a view document of the partition names that target again. Call it
     * once no reader can still hold the generation of the view that left: {@code generationGrace}
     * after it went.
     * @param partition the partition
     * @param target the target its views left
     * @return how many rows it removed; -1 when a view document names the target again
     * @throws MongoException when the deployment fails
     */
    public long removeLeftRows(String partition, String target) {
        return leftRows.remove(partition, target);
    }

    /**
     * A result found equal to the stored rows is confirmed with the write-version compare-and-set, so
     * no pass that started earlier can still make an older result current after this conclusion.
     */
    private PassReport confirmed(ViewDefinition view, WriteOutcome outcome, @Nullable Generation current, long version,
            @Nullable PassStatus note, long started) throws PassSupersededException {
        if (!outcome.changed() && !flip.confirm(view, current, version, note)) {
            throw new PassSupersededException("another pass wrote the view while this one found it unchanged");
        }
        return report(view, outcome, started);
    }

    /** The report with what the pass recomputed, when it was asked for a key scope. */
    private static PassReport scoped(PassReport report, @Nullable KeyScope asked, @Nullable KeyScope ran) {
        if (ran != null) {
            return report.scoped(PassScope.KEYS, ran.description());
        }
        return asked == null ? report : report.scoped(PassScope.FULL, "the view has no rows of its own yet");
    }

    private static PassReport report(ViewDefinition view, WriteOutcome outcome, long started) {
        return new PassReport(view.key(), outcome.mode(), outcome.changed() ? PassOutcome.CHANGED : PassOutcome.UNCHANGED,
                outcome.rowsWritten(), outcome.rowsRemoved(), since(started), null);
    }

    /** The report of a pass that ended in an error of the view. */
    private static PassReport errored(ViewDefinition view, WriteMode mode, long started, String error) {
        return new PassReport(view.key(), mode, PassOutcome.ERRORED, 0, 0, since(started), error);
    }

    private static Duration since(long started) {
        return Duration.ofNanos(System.nanoTime() - started);
    }
}
