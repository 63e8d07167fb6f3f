package dev.materializer.core.stream;

import java.util.Set;

import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * Where a source's stream stood when an instance last saved it, and what that instance answered
 * for. The invariant every save keeps: for each partition its {@code writer} owned among
 * {@code live} (by the rule of {@code PartitionOwnership.owner}), every event of the collection
 * before {@code token} was applied by a completed pass, or that partition is in {@code pending}.
 *
 * @param token the resume token, or null when the stream must start from now
 * @param pending the partitions with unfinished work from this collection at the time of the save
 * @param writer the instance that saved it; null when unknown (no checkpoint, or one of an older
 *     engine), and then it answers for no partition
 * @param live the live instances as the writer knew them when it saved (empty: it knew of none,
 *     and so owned every partition)
 */
public record Checkpoint(@Nullable BsonDocument token, Set<String> pending, @Nullable String writer, Set<String> live) {

    /** No checkpoint: start from now, answering for nothing. */
    public static final Checkpoint NONE = new Checkpoint(null, Set.of(), null, Set.of());

    /** Copies the sets so the record stays immutable. */
    public Checkpoint {
        pending = Set.copyOf(pending);
        live = Set.copyOf(live);
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
}
