package dev.materializer.core.stream;

import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * Where a source's stream stood when an instance last saved it, and what that instance answered
 * for. The invariant every save keeps: for each partition its {@code writer} owned among
 * {@code live} (by the rule of {@code OwnedPartitions.owner}), every event of the collection
 * before {@code token} was applied by a completed pass, or that partition is in {@code pending}.
 *
 * <p>It also names the newest event of the collection the stream had handed over before its token
 * ({@code lastEvent}, with its cluster time), so two checkpoints of different instances can be
 * ordered: a checkpoint that is at or after another one's position answers, for the partitions its
 * writer owned, for every event before that other one's token too ({@link #coversWhatPrecedes}). A
 * stream resumed from one checkpoint therefore also takes the word of the others that are at or after
 * it ({@code alongside}), and catches up only the partitions none of them answers for.
 *
 * @param token the resume token, or null when the stream must start from now
 * @param pending the partitions with unfinished work from this collection at the time of the save
 * @param writer the instance that saved it; null when unknown (no checkpoint, or one of an older
 *     engine), and then it answers for no partition
 * @param live the live instances as the writer knew them when it saved (empty: it knew of none,
 *     and so owned every partition)
 * @param lastEvent the id (resume token) of the newest event handed over before {@code token}; null
 *     when unknown (none since the stream started from now, or saved by an older engine)
 * @param lastEventTime the cluster time of that event; null when unknown
 * @param alongside the checkpoints of other instances at or after this one's position, loaded with it
 */
public record Checkpoint(@Nullable BsonDocument token, Set<String> pending, @Nullable String writer, Set<String> live,
        @Nullable BsonDocument lastEvent, @Nullable BsonTimestamp lastEventTime, List<Checkpoint> alongside) {

    /** How often {@link #take} reads the live set again when it changed while the pending list was read. */
    static final int LIVE_SET_READS = 10;

    /** No checkpoint: start from now, answering for nothing. */
    public static final Checkpoint NONE = new Checkpoint(null, Set.of(), null, Set.of());

    /** Copies the sets so the record stays immutable. */
    public Checkpoint {
        pending = Set.copyOf(pending);
        live = Set.copyOf(live);
        alongside = List.copyOf(alongside);
    }

    /** A checkpoint that names no last event and has none alongside. */
    public Checkpoint(@Nullable BsonDocument token, Set<String> pending, @Nullable String writer, Set<String> live) {
        this(token, pending, writer, live, null, null, List.of());
    }

    /**
     * What a stream saves now: its position, the unfinished partitions and the live set.
     * @param token where the stream stands
     * @param pending the partitions with unfinished work
     * @param live the live instances, read before {@code pending}
     * @return the checkpoint, its writer filled in by the store
     */
    public static Checkpoint at(BsonDocument token, Set<String> pending, Set<String> live) {
        return new Checkpoint(token, pending, null, live);
    }

    /**
     * Takes what a stream saves now so that it keeps the invariant above, in three reads:
     * <ol>
     * <li>the live set;</li>
     * <li>the pending partitions: a catch-up of a partition that live set gives this instance is
     *     marked before the live set is published, so it is in the list;</li>
     * <li>the live set again: when it changed, a beat may have moved a partition of the list away
     *     (its pass then left its marks to the new owner, and the list), and the checkpoint must not
     *     answer for it, so both are read again.</li>
     * </ol>
     * @param token where the stream stands
     * @param live reads the live instances
     * @param pending reads the partitions with unfinished work from the stream's collection
     * @return the checkpoint, its writer filled in by the store
     * @throws IllegalStateException when the live set kept changing: the stream saves nothing this
     *     time and keeps its older checkpoint (an older token only replays events)
     */
    public static Checkpoint take(BsonDocument token, Supplier<Set<String>> live, Supplier<Set<String>> pending) {
        for (int attempt = 0; attempt < LIVE_SET_READS; attempt++) {
            Set<String> liveNow = live.get();
            Set<String> pendingNow = pending.get();
            if (live.get().equals(liveNow)) {
                return at(token, pendingNow, liveNow);
            }
        }
        throw new IllegalStateException("the live instances kept changing while the pending partitions were read");
    }

    /** The same, naming the newest event handed over before its token. */
    public Checkpoint withLastEvent(@Nullable BsonDocument event, @Nullable BsonTimestamp time) {
        return new Checkpoint(token, pending, writer, live, event, time, alongside);
    }

    /** The same, with the checkpoints of other instances that are at or after its position. */
    Checkpoint withAlongside(List<Checkpoint> others) {
        return new Checkpoint(token, pending, writer, live, lastEvent, lastEventTime, others);
    }

    /**
     * Whether every event before the other checkpoint's token is before this one's too, as far as
     * the two can tell: the same token; or the same newest event handed over before each (events of
     * one collection reach every stream in the same order, and a token past the last event covers no
     * event of the collection after it); or a newest event of a later cluster time (every event up to
     * the other's newest one has a time at most that one's, so strictly before this one's newest).
     * Anything else — a checkpoint without a last event, equal times of different events — is not
     * ordered, and the answer is false (fail safe: the partitions catch up).
     * @param other the checkpoint a stream resumes from
     */
    public boolean coversWhatPrecedes(Checkpoint other) {
        if (token == null || other.token == null) {
            return false;
        }
        if (token.equals(other.token)) {
            return true;
        }
        if (lastEvent != null && lastEvent.equals(other.lastEvent)) {
            return true;
        }
        return lastEventTime != null && other.lastEventTime != null && lastEventTime.compareTo(other.lastEventTime) > 0;
    }
}
