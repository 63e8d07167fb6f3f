package dev.materializer.core.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Sorts;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the resume tokens of the source streams in the engine's checkpoints collection, one
 * document per collection and instance ({@code _id: "stream:<collection>@<instance>"}), so a
 * restart resumes instead of recomputing, and no instance overwrites what another answered for.
 *
 * <p>Which checkpoint a stream resumes from: its own instance's, when there is one; else, of the
 * recent ones, the one the most others are at or after (a restart under a
 * new instance id takes over where the cluster stands, not only where the newest saver stood). Any
 * checkpoint is a safe start, since each says which partitions it answers for (see
 * {@link Checkpoint}); the engine catches up the partitions it owns that neither that checkpoint nor
 * any other one at or after its position ({@link Checkpoint#alongside()}, loaded in the same read)
 * answers for: a restart under a new id after a cluster of several instances catches up nothing
 * their checkpoints all answer for. After its own first save for a collection, an instance removes the checkpoints of that
 * collection left by instances no longer live, and the one an older engine shared between
 * instances ({@code stream:<collection>}), so they do not pile up.
 *
 * <p>Thread-safe: each stream thread saves only its own collection's document.
 */
public final class CheckpointStore {

    private static final Logger log = LoggerFactory.getLogger(CheckpointStore.class);

    static final String KIND = "stream";

    private final MongoCollection<BsonDocument> checkpoints;

    private final String instanceId;

    private final Supplier<Set<String>> live;

    /** How long before the newest checkpoint another may have been saved and still be resumed from. */
    private final Duration recent;

    /** The collections whose leftovers of other instances were removed already. */
    private final Set<String> tidied = ConcurrentHashMap.newKeySet();

    /**
     * Creates the store; a stream without a checkpoint of its own resumes from the newest one.
     * @param database the engine's database
     * @param collection the checkpoints collection
     * @param instanceId this instance
     * @param live the instances live now, whose checkpoints are never removed
     */
    public CheckpointStore(MongoDatabase database, String collection, String instanceId, Supplier<Set<String>> live) {
        this(database, collection, instanceId, live, Duration.ZERO);
    }

    /**
     * Creates the store.
     * @param database the engine's database
     * @param collection the checkpoints collection
     * @param instanceId this instance
     * @param live the instances live now, whose checkpoints are never removed
     * @param recent how long before the newest checkpoint another one may have been saved and still be
     *     where a stream without a checkpoint of its own resumes (the partition lease: an instance
     *     that left that recently, or one whose stream saves as often as streams do)
     */
    public CheckpointStore(MongoDatabase database, String collection, String instanceId, Supplier<Set<String>> live,
            Duration recent) {
        this.checkpoints = database.getCollection(collection, BsonDocument.class);
        this.instanceId = instanceId;
        this.live = live;
        this.recent = recent;
    }

    /**
     * The checkpoint a collection's stream resumes from: this instance's, else the one of the others
     * that the most others are at or after ({@link #resumePoint}).
     * @param collection the watched collection
     * @return the checkpoint, or {@link Checkpoint#NONE}
     */
    public Checkpoint load(String collection) {
        // One read of every checkpoint of the collection: the one to resume from, and the others' word
        List<Saved> saved = saved(collection);
        Checkpoint chosen = saved.stream().map(Saved::checkpoint)
            .filter(checkpoint -> instanceId.equals(checkpoint.writer())).findFirst()
            .orElse(saved.isEmpty() ? null : resumePoint(saved));
        if (chosen == null) {
            return Checkpoint.NONE;
        }
        if (!instanceId.equals(chosen.writer())) {
            log.info("The stream of {} resumes from the checkpoint of instance {}", collection,
                    chosen.writer() == null ? "(an older engine)" : chosen.writer());
        }
        // The others at or after its position answer for their writers' partitions as well
        List<Checkpoint> alongside = new ArrayList<>();
        for (Saved other : saved) {
            if (other.checkpoint() != chosen && other.checkpoint().writer() != null
                    && other.checkpoint().coversWhatPrecedes(chosen)) {
                alongside.add(other.checkpoint());
            }
        }
        return chosen.withAlongside(alongside);
    }

    /**
     * Where a stream with no checkpoint of its own resumes: of the candidates — the newest checkpoint
     * and those saved within {@code recent} of it — the one the most other checkpoints are at or after,
     * so their writers' word answers for their partitions too; on a tie, the newest. Resuming from an
     * older position replays the events since, which the passes let go where the views' statuses cover
     * them; resuming from the newest would leave the partitions of every checkpoint behind it to catch
     * up whole. A checkpoint saved long before the newest is no candidate, whether its writer is gone or
     * live with a stream that stalled: its position may be far back in the history, or out of it.
     * @param saved the checkpoints, newest first
     */
    private Checkpoint resumePoint(List<Saved> saved) {
        long newest = saved.get(0).at();
        Checkpoint best = saved.get(0).checkpoint();
        int bestCount = -1;
        for (Saved candidate : saved) {
            Checkpoint checkpoint = candidate.checkpoint();
            boolean recentEnough = candidate == saved.get(0)
                    || (candidate.at() != Long.MIN_VALUE && newest - candidate.at() <= recent.toMillis());
            if (checkpoint.writer() == null || !recentEnough) {
                continue;
            }
            int count = 0;
            for (Saved other : saved) {
                if (other != candidate && other.checkpoint().writer() != null
                        && other.checkpoint().coversWhatPrecedes(checkpoint)) {
                    count++;
                }
            }
            if (count > bestCount) {
                best = checkpoint;
                bestCount = count;
            }
        }
        return best;
    }

    /**
     * Every checkpoint of a collection with a token, of every instance, newest first: what a take-over
     * asks which partitions they answer for.
     * @param collection the watched collection
     * @return the checkpoints
     * @throws com.mongodb.MongoException when they cannot be read
     */
    public List<Checkpoint> all(String collection) {
        return saved(collection).stream().map(Saved::checkpoint).toList();
    }

    /** Every checkpoint of a collection with a token, with when it was saved, newest first. */
    private List<Saved> saved(String collection) {
        List<Saved> saved = new ArrayList<>();
        Bson all = Filters.and(Filters.eq("kind", KIND), Filters.eq("collection", collection));
        for (BsonDocument document : checkpoints.find(all).sort(Sorts.descending("at"))) {
            if (document.isDocument("token")) {
                long at = document.isDateTime("at") ? document.getDateTime("at").getValue() : Long.MIN_VALUE;
                saved.add(new Saved(read(document), at));
            }
        }
        return saved;
    }

    /** A checkpoint as stored, with when it was saved (host time of its writer, in epoch millis). */
    private record Saved(Checkpoint checkpoint, long at) {
    }

    private static Checkpoint read(BsonDocument saved) {
        String writer = saved.isString("instance") ? saved.getString("instance").getValue() : null;
        BsonDocument lastEvent = saved.isDocument("lastEvent") ? saved.getDocument("lastEvent") : null;
        BsonTimestamp lastEventTime = saved.isTimestamp("lastEventTime") ? saved.getTimestamp("lastEventTime") : null;
        return new Checkpoint(saved.getDocument("token"), strings(saved.get("pending")), writer,
                strings(saved.get("live")), lastEvent, lastEventTime, List.of());
    }

    private static Set<String> strings(BsonValue value) {
        Set<String> strings = new LinkedHashSet<>();
        if (value instanceof BsonArray array) {
            for (BsonValue each : array) {
                if (each.isString()) {
                    strings.add(each.asString().getValue());
                }
            }
        }
        return strings;
    }

    /**
     * Saves where a stream stands, as this instance's checkpoint. A failure is logged, not thrown:
     * the next save tries again, and an old token only replays events.
     * @param collection the watched collection
     * @param checkpoint the token, the pending partitions and the live set
     * @param savedAtMillis when, on the host's clock, for operators reading the collection
     */
    public void save(String collection, Checkpoint checkpoint, long savedAtMillis) {
        BsonDocument document = new BsonDocument("_id", new BsonString(idOf(collection, instanceId)))
            .append("kind", new BsonString(KIND))
            .append("collection", new BsonString(collection))
            .append("instance", new BsonString(instanceId))
            .append("at", new BsonDateTime(savedAtMillis));
        if (checkpoint.token() != null) {
            document.append("token", checkpoint.token());
        }
        document.append("pending", sorted(checkpoint.pending())).append("live", sorted(checkpoint.live()));
        if (checkpoint.lastEvent() != null) {
            document.append("lastEvent", checkpoint.lastEvent());
        }
        if (checkpoint.lastEventTime() != null) {
            document.append("lastEventTime", checkpoint.lastEventTime());
        }
        try {
            checkpoints.replaceOne(Filters.eq("_id", idOf(collection, instanceId)), document,
                    new ReplaceOptions().upsert(true));
        }
        catch (MongoException ex) {
            log.warn("The checkpoint of the stream of {} was not saved: {}", collection, ex.getMessage());
            return;
        }
        if (!tidied.contains(collection)) {
            tidy(collection);
        }
    }

    /** Removes what instances no longer live left for this collection: this instance's checkpoint stands for it now. */
    private void tidy(String collection) {
        Set<String> keep = new HashSet<>(live.get());
        keep.add(instanceId);
        List<BsonValue> stale = new ArrayList<>();
        try {
            for (BsonDocument other : checkpoints.find(Filters.and(Filters.eq("kind", KIND),
                    Filters.eq("collection", collection)))) {
                // An older engine shared one checkpoint per collection between its instances: it has no instance.
                boolean legacy = !other.isString("instance");
                if (legacy || !keep.contains(other.getString("instance").getValue())) {
                    stale.add(other.get("_id"));
                }
            }
            if (!stale.isEmpty()) {
                checkpoints.deleteMany(Filters.in("_id", stale));
            }
            tidied.add(collection);
        }
        catch (MongoException ex) {
            log.debug("The old checkpoints of {} were not removed yet: {}", collection, ex.getMessage());
        }
    }

    /**
     * Forgets this instance's token of a collection (its history is lost): the stream starts from
     * now next time.
     * @param collection the watched collection
     */
    public void clear(String collection) {
        try {
            checkpoints.deleteOne(Filters.eq("_id", idOf(collection, instanceId)));
        }
        catch (MongoException ex) {
            log.warn("The checkpoint of the stream of {} was not cleared: {}", collection, ex.getMessage());
        }
    }

    private static BsonArray sorted(Set<String> values) {
        List<BsonValue> sorted = new ArrayList<>();
        values.stream().sorted().forEach(value -> sorted.add(new BsonString(value)));
        return new BsonArray(sorted);
    }

    private static String idOf(String collection, String instance) {
        return "stream:" + collection + "@" + instance;
    }
}
