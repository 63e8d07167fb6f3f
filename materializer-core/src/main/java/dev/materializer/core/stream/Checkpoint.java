package dev.materializer.core.stream;

import java.util.Set;

import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * Where a source's stream stood when last saved: the resume token, and the partitions that still
 * had work from that source (dirty or in a pass), which a restart must run since the token is
 * already past their events.
 *
 * @param token the resume token, or null when the stream must start from now
 * @param pending the partitions with unfinished work at the time of the save
 */
public record Checkpoint(@Nullable BsonDocument token, Set<String> pending) {

    /** No checkpoint: start from now. */
    public static final Checkpoint NONE = new Checkpoint(null, Set.of());

    /** Copies the set so the record stays immutable. */
    public Checkpoint {
        pending = Set.copyOf(pending);
    }
}
