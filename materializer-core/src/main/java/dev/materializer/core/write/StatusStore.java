package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import com.mongodb.ReadConcern;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import dev.materializer.core.Generation;
import dev.materializer.core.GenerationPlace;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.CoveredTimes;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes the status field of view documents. A status write sets only {@code state},
 * {@code at} and {@code lastError}: the generation (and its place), the previous generation and the
 * lease belong to the writers and are never touched here, so a status write cannot undo a flip or a
 * lease. It also tells which view document holds a target in a partition ({@link TargetHolder}).
 *
 * <p>Immutable and thread-safe.
 */
public final class StatusStore {

    /** The field of a status read that carries the stored versions of a key-scoped pass's rows. */
    private static final String VERSIONS_OF_KEYS = "versionsOfKeys";

    /**
     * The field of the status that keeps the fingerprint of the definition of the last successful
     * run, so a restart can tell a view whose definition changed while the engine was down.
     */
    public static final String FINGERPRINT_FIELD = "fingerprint";

    /**
     * The field of the status that lists the targets of other views of the partition that the last
     * {@code ok} run read: a view over views whose upstream went while no engine heard it (deleted
     * while none ran, or before its rebalance ran) is found from it at the next start.
     */
    public static final String READS_FIELD = "reads";

    /**
     * The targets of other views a view's last {@code ok} run read, as its stored status records them.
     * @param status the status field as stored, or null
     * @return the targets; empty when none or not recorded
     */
    public static Set<String> readsOf(@Nullable BsonDocument status) {
        BsonValue reads = status == null ? null : status.get(READS_FIELD);
        if (reads == null || !reads.isArray()) {
            return Set.of();
        }
        Set<String> targets = new TreeSet<>();
        reads.asArray().forEach(target -> {
            if (target.isString()) {
                targets.add(target.asString().getValue());
            }
        });
        return targets;
    }

    /** The field of a view document that names its target. */
    private static final String TARGET_FIELD = "targetCollection";

    private final ViewDocuments views;

    /**
     * Creates a store.
     * @param database the database of the views collection
     * @param options the writers' settings (views collection, partition and status fields)
     */
    public StatusStore(MongoDatabase database, WriteSettings options) {
        this.views = new ViewDocuments(database, options);
    }

    /**
     * Writes the state of a view. An {@code ok} state also records the fingerprint of the definition
     * that ran.
     * @param view the view
     * @param state its state
     * @param lastError why it is errored; null unsets the stored error
     * @param at when (host time)
     */
    public void write(ViewDefinition view, ViewState state, @Nullable String lastError, Instant at) {
        write(view, state, lastError, at, Map.of());
    }

    /**
     * Writes the state of a view and raises the cluster times of the changes it has applied (see
     * {@link CoveredTimes}), in one update.
     * @param view the view
     * @param state its state
     * @param lastError why it is errored; null unsets the stored error
     * @param at when (host time)
     * @param covered per collection, the cluster time of the newest change applied; may be empty
     */
    public void write(ViewDefinition view, ViewState state, @Nullable String lastError, Instant at,
            Map<String, BsonTimestamp> covered) {
        write(view, state, lastError, at, covered, List.of());
    }

    /**
     * Writes the state of a view, raises the cluster times of the changes it has applied, and — for
     * an {@code ok} run — records the targets of other views of its partition that the run read
     * ({@value #READS_FIELD}), in one update.
     * @param reads the targets of other views the run read; ignored unless the state is ok
     */
    public void write(ViewDefinition view, ViewState state, @Nullable String lastError, Instant at,
            Map<String, BsonTimestamp> covered, Collection<String> reads) {
        views.collection().updateOne(views.filter(view), stateUpdate(views, view, state, lastError, at, covered, reads));
    }

    /**
     * The update of a status write (see {@link #write(ViewDefinition, ViewState, String, Instant, Map, Collection)}),
     * for a flip or a confirmation to send with its own: the state of a pass that ended ok then lands
     * in the same compare-and-set as its result.
     */
    static BsonDocument stateUpdate(ViewDocuments views, ViewDefinition view, ViewState state,
            @Nullable String lastError, Instant at, Map<String, BsonTimestamp> covered, Collection<String> reads) {
        BsonDocument update = update(views, state, lastError, at);
        if (state == ViewState.OK) {
            update.getDocument("$set").append(views.status(FINGERPRINT_FIELD), new BsonString(view.fingerprint()));
            if (reads.isEmpty()) {
                update.computeIfAbsent("$unset", key -> new BsonDocument()).asDocument()
                    .append(views.status(READS_FIELD), new BsonString(""));
            }
            else {
                update.getDocument("$set").append(views.status(READS_FIELD),
                        new BsonArray(new TreeSet<>(reads).stream().<BsonValue>map(BsonString::new).toList()));
            }
        }
        if (!covered.isEmpty()) {
            update.append("$max", CoveredTimes.raise(views::status, covered));
        }
        return update;
    }

    /**
     * Reads the status field of a view as stored, for what {@link ViewStatus} does not model (the
     * {@link CoveredTimes}).
     * @param view the view
     * @return the status field, or null when the document or its status is missing
     */
    public @Nullable BsonDocument readStored(ViewDefinition view) {
        BsonDocument document = views.collection()
            .find(views.filter(view))
            .projection(Projections.include(views.statusField()))
            .first();
        BsonValue stored = document == null ? null : document.get(views.statusField());
        return stored != null && stored.isDocument() ? stored.asDocument() : null;
    }

    /**
     * Says in the status that a view runs a full catch-up, and why (its stream lost its history,
     * or was invalidated, and started again from now). The field stays until the next catch-up.
     * @param view the view
     * @param reason why the catch-up
     * @param at when (host time)
     */
    public void writeCatchUp(ViewDefinition view, String reason, Instant at) {
        BsonDocument catchUp = new BsonDocument("reason", new BsonString(reason)).append("at", new BsonDateTime(at.toEpochMilli()));
        views.collection().updateOne(views.filter(view), new BsonDocument("$set", new BsonDocument(views.status("catchUp"), catchUp)));
    }

    /**
     * Says in the status when the reconciler last checked the view, and — when it found drift —
     * what differed ({@code reconcile: {at, drift: {at, missing, changed, extra}}}). The last drift
     * stays until the next one.
     * @param view the view
     * @param at when (host time)
     * @param drift what differed, when the check found drift
     */
    public void writeReconciled(ViewDefinition view, Instant at, @Nullable VerifyReport drift) {
        BsonDocument set = new BsonDocument(views.status("reconcile.at"), new BsonDateTime(at.toEpochMilli()));
        if (drift != null) {
            set.append(views.status("reconcile.drift"), new BsonDocument("at", new BsonDateTime(at.toEpochMilli()))
                .append("missing", new org.bson.BsonInt64(drift.missing()))
                .append("changed", new org.bson.BsonInt64(drift.changed()))
                .append("extra", new org.bson.BsonInt64(drift.extra())));
        }
        views.collection().updateOne(views.filter(view), new BsonDocument("$set", set));
    }

    /**
     * Writes the status of a view document that cannot run.
     * @param id the {@code _id} of the view document
     * @param partition its partition, when the document names one
     * @param error why it cannot run
     * @param at when (host time)
     */
    public void writeInvalid(BsonValue id, @Nullable String partition, String error, Instant at) {
        views.collection().updateOne(views.filter(id, partition), update(views, ViewState.ERRORED, error, at));
    }

    /**
     * The status fields of every view document of a partition, by the text of its id
     * ({@link dev.materializer.core.ViewKey#idText}): one read for a partition taken over.
     * @param partition the partition
     * @return the stored status fields; a document without one is left out
     */
    public Map<String, BsonDocument> storedStatuses(String partition) {
        Map<String, BsonDocument> statuses = new HashMap<>();
        views.collection()
            .find(new BsonDocument(views.partitionField(), new BsonString(partition)))
            .projection(Projections.include(views.statusField()))
            .forEach(document -> {
                BsonValue stored = document.get(views.statusField());
                if (stored != null && stored.isDocument()) {
                    statuses.put(dev.materializer.core.ViewKey.idText(document.get("_id")), stored.asDocument());
                }
            });
        return statuses;
    }

    /**
     * Reads the status of a view.
     * @param view the view
     * @return its status; {@link ViewStatus#NONE} when the document or its status is missing
     */
    public ViewStatus read(ViewDefinition view) {
        return ViewStatus.fromBson(readStored(view));
    }

    /**
     * The status of a view with the server's time of the read, so that leases and grace times,
     * which are server times, compare with a time of the same clock.
     * @return null when the view document is gone
     */
    @Nullable
    StatusAtServerTime readAtServerTime(ViewDefinition view) {
        return readAtServerTime(view, null);
    }

    /**
     * The status of a view with the server's time, as above, and — given the row ids of a
     * key-scoped pass — the stored versions of those rows in the view's target, whole and of every
     * generation, in {@code _viewRow} order ({@link StatusAtServerTime#versionsOfKeys}): one round
     * trip where the pass would send two. The pass picks those of the generation the status names;
     * they never change while it is current or within its grace, so read before the pipeline they
     * are what a read after it would give.
     * @param rowIds the row ids of the pass's keys, or null to read the status alone
     * @return null when the view document is gone
     */
    @Nullable
    StatusAtServerTime readAtServerTime(ViewDefinition view, @Nullable List<BsonValue> rowIds) {
        List<BsonDocument> pipeline = new ArrayList<>(List.of(new BsonDocument("$match", views.filter(view)),
                new BsonDocument("$limit", new BsonInt32(1)),
                new BsonDocument("$project", new BsonDocument("_id", new BsonInt32(0))
                    .append("status", new BsonString("$" + views.statusField()))
                    .append("now", new BsonString("$$NOW")))));
        if (rowIds != null) {
            BsonDocument versionsOfKeys = new BsonDocument(views.partitionField(), new BsonString(view.partition()))
                .append(ViewFilter.ROW_FIELD, new BsonDocument("$in", new BsonArray(rowIds)))
                .append(ViewFilter.TO_FIELD, new BsonDocument("$exists", BsonBoolean.TRUE));
            pipeline.add(new BsonDocument("$lookup", new BsonDocument("from", new BsonString(view.targetCollection()))
                .append("pipeline", new BsonArray(List.of(new BsonDocument("$match", versionsOfKeys),
                        new BsonDocument("$sort", new BsonDocument(ViewFilter.ROW_FIELD, new BsonInt32(1))))))
                .append("as", new BsonString(VERSIONS_OF_KEYS))));
        }
        BsonDocument row = views.collection().aggregate(pipeline).first();
        if (row == null || !row.isDateTime("now")) {
            return null;
        }
        return atServerTime(row);
    }

    /** A status read together with {@code now: $$NOW}, as the reads with the server's time project it. */
    private static StatusAtServerTime atServerTime(BsonDocument row) {
        BsonValue stored = row.get("status");
        List<BsonDocument> versionsOfKeys = null;
        if (row.isArray(VERSIONS_OF_KEYS)) {
            versionsOfKeys = new ArrayList<>();
            for (BsonValue version : row.getArray(VERSIONS_OF_KEYS)) {
                if (version.isDocument()) {
                    versionsOfKeys.add(version.asDocument());
                }
            }
        }
        return new StatusAtServerTime(statusOf(stored), ServerTime.readNow(Instant.ofEpochMilli(row.getDateTime("now").getValue())),
                GenerationPlace.of(stored != null && stored.isDocument() ? stored.asDocument() : null), versionsOfKeys);
    }

    /**
     * The statuses of several views in one read, with the server's time of it: what a batched pass
     * starts from. A view whose document is gone is not in the map.
     */
    Map<ViewKey, StatusAtServerTime> readAtServerTime(Collection<ViewDefinition> many) {
        List<BsonValue> filters = new ArrayList<>(many.size());
        many.forEach(view -> filters.add(views.filter(view)));
        Map<ViewKey, StatusAtServerTime> read = new HashMap<>();
        views.collection()
            .aggregate(List.of(new BsonDocument("$match", new BsonDocument("$or", new BsonArray(filters))),
                    new BsonDocument("$project", new BsonDocument("_id", new BsonInt32(1))
                        .append(views.partitionField(), new BsonInt32(1))
                        .append("status", new BsonString("$" + views.statusField()))
                        .append("now", new BsonString("$$NOW")))))
            .forEach(row -> {
                BsonValue partition = row.get(views.partitionField());
                if (row.isDateTime("now") && partition != null && partition.isString()) {
                    read.put(ViewKey.of(partition.asString().getValue(), row.get("_id")), atServerTime(row));
                }
            });
        return read;
    }

    /**
     * One read of the views collection in a session, for its causal wait; majority read concern so
     * the wait is for the majority snapshot.
     */
    void probe(ClientSession session, Duration maxTime) {
        views.collection().withReadConcern(ReadConcern.MAJORITY)
            .find(session, new BsonDocument())
            .projection(Projections.include("_id"))
            .limit(1)
            .maxTime(maxTime.toMillis(), TimeUnit.MILLISECONDS)
            .first();
    }

    /**
     * Per target a view document of a partition names, the current generation of the view that
     * holds it ({@link TargetHolder}; null when none does, or before its first run): the target rows
     * the partition's pipelines may read.
     */
    Map<String, @Nullable Generation> currentGenerations(String partition) {
        Map<String, List<TargetHolder.Claim>> claims = claims(new BsonDocument(views.partitionField(),
                new BsonString(partition)));
        Map<String, @Nullable Generation> generations = new HashMap<>();
        claims.forEach((target, onTarget) -> {
            TargetHolder.Claim holder = TargetHolder.of(target, partition, onTarget);
            generations.put(target, holder == null ? null : holder.generation());
        });
        return generations;
    }

    /**
     * The view document that holds a target in a partition (see {@link TargetHolder}), read from the
     * view documents that name both, valid or not.
     * @param partition the partition
     * @param target the target collection
     * @return the {@code _id} of the holder, or null when no document holds it
     * @throws com.mongodb.MongoException when the read fails
     */
    public @Nullable BsonValue holderOf(String partition, String target) {
        List<TargetHolder.Claim> onTarget = claims(new BsonDocument(views.partitionField(), new BsonString(partition))
            .append(TARGET_FIELD, new BsonString(target))).getOrDefault(target, List.of());
        TargetHolder.Claim holder = TargetHolder.of(target, partition, onTarget);
        return holder == null ? null : holder.id();
    }

    /** Per target named, the claims of the view documents the filter selects. */
    private Map<String, List<TargetHolder.Claim>> claims(BsonDocument filter) {
        Map<String, List<TargetHolder.Claim>> claims = new HashMap<>();
        views.collection()
            .find(filter)
            .projection(Projections.include(TARGET_FIELD, views.status(ViewStatus.GENERATION_KEY),
                    views.status(GenerationPlace.FIELD)))
            .forEach(document -> {
                BsonValue target = document.get(TARGET_FIELD);
                if (target != null && target.isString()) {
                    BsonValue stored = document.get(views.statusField());
                    BsonDocument status = stored != null && stored.isDocument() ? stored.asDocument() : null;
                    claims.computeIfAbsent(target.asString().getValue(), key -> new ArrayList<>())
                        .add(new TargetHolder.Claim(document.get("_id"), ViewStatus.fromBson(status).generation(),
                                GenerationPlace.of(status)));
                }
            });
        return claims;
    }

    private static ViewStatus statusOf(@Nullable BsonValue value) {
        return ViewStatus.fromBson(value != null && value.isDocument() ? value.asDocument() : null);
    }

    private static BsonDocument update(ViewDocuments views, ViewState state, @Nullable String lastError, Instant at) {
        BsonDocument set = new BsonDocument(views.status("state"), new BsonString(state.storedValue()))
            .append(views.status("at"), new BsonDateTime(at.toEpochMilli()));
        BsonDocument update = new BsonDocument("$set", set);
        if (lastError != null) {
            set.append(views.status("lastError"), new BsonString(lastError));
        }
        else {
            update.append("$unset", new BsonDocument(views.status("lastError"), new BsonString("")));
        }
        return update;
    }

    /**
     * The status of a view read together with the server's time.
     * @param status its status
     * @param serverTime the server's time of the read, carried forward
     * @param place where its generation was written, when recorded
     * @param versionsOfKeys the stored versions of a key-scoped pass's rows, of every generation, read
     *     with the status; null when not asked for
     */
    record StatusAtServerTime(ViewStatus status, ServerTime serverTime, @Nullable GenerationPlace place,
            @Nullable List<BsonDocument> versionsOfKeys) {

        /** The server's time of the read. */
        Instant serverNow() {
            return serverTime.read();
        }

        /**
         * Whether the status's generation was written in another place than the one the view
         * writes now (it was given another target, or moved to another partition): there it names
         * no rows, and the view's next pass is its first in its place.
         */
        boolean arrived(ViewDefinition view) {
            return status.generation() != null
                    && !GenerationPlace.fits(place, view.targetCollection(), view.partition());
        }

        /** True while a lease of a pass in groups holds the view. */
        boolean leaseIsLive() {
            ViewStatus.Lease lease = status.lease();
            return lease != null && lease.until().isAfter(serverNow());
        }
    }
}
