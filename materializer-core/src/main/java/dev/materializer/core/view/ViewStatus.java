package dev.materializer.core.view;

import java.time.Instant;

import org.bson.BsonDocument;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * The status field of a view document: its state and last error, when it was written, the current
 * generation of its rows, the previous generation (kept for a grace time after a flip), and the
 * lease of a pass in groups.
 *
 * @param state the state, absent before the first status write
 * @param lastError why the view is errored, absent otherwise
 * @param at when the state was written (host time)
 * @param generation the generation readers read; absent before the first run
 * @param previous the generation before the last flip, with the server time of the flip
 * @param lease the lease of a pass in groups, when one holds or held the view
 */
public record ViewStatus(@Nullable ViewState state, @Nullable String lastError, @Nullable Instant at,
        @Nullable ObjectId generation, @Nullable Previous previous, @Nullable Lease lease) {

    /** The status of a view never run. */
    public static final ViewStatus NONE = new ViewStatus(null, null, null, null, null, null);

    /**
     * Reads a stored status; missing or mistyped fields read as absent.
     * @param status the value of the status field, or null when the view has none
     * @return the status
     */
    public static ViewStatus fromBson(@Nullable BsonDocument status) {
        throw new UnsupportedOperationException("ViewStatus.fromBson: not implemented yet");
    }

    /** The status as stored, without absent fields. */
    public BsonDocument toBson() {
        throw new UnsupportedOperationException("ViewStatus.toBson: not implemented yet");
    }

    /**
     * The generation before the last flip.
     * @param generation the previous generation, null when the flip was the first
     * @param flippedAt the server time of the flip
     */
    public record Previous(@Nullable ObjectId generation, @Nullable Instant flippedAt) {
    }

    /**
     * The lease of a pass that writes a new generation in groups.
     * @param owner who holds it (unique per pass)
     * @param generation the generation the pass writes
     * @param until when it ends, in server time
     */
    public record Lease(String owner, ObjectId generation, Instant until) {
    }
}
