package dev.materializer.core.view;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.materializer.core.Generation;
import dev.materializer.core.ViewState;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;


/**
 * The status field of a view document: its state and last error, when it was written, the current
 * generation of its rows, the previous generation (readable for a grace time after a flip), the
 * lease of a pass that writes in groups, the write version and the count of write attempts.
 *
 * <p>Immutable and thread-safe. Times are kept to the millisecond, as BSON dates store them, so a
 * status reads back equal to what was written.
 *
 * @param state the state, absent before the first status write
 * @param lastError why the view is errored, absent otherwise
 * @param at when the state was written (host time)
 * @param generation the generation readers read; absent before the first run
 * @param previous the generation before the last flip, with the server time of the flip
 * @param earlier the generations before {@code previous} that a reader may still hold, oldest first,
 *     each with the server time it was superseded (see {@code write.ReadableGenerations}); empty when
 *     none was superseded within {@code generationGrace} of the last flip
 * @param lease the lease of a pass in groups, when one holds or held the view
 * @param version the write version: every pass that writes or confirms the rows moves it by one
 *     with a compare-and-set, so a pass that started from an older version can never flip or confirm
 *     over a newer one; 0 before the first such pass
 * @param attempts how many passes began writing row versions: each takes the next number as the
 *     generation it writes, so a number above the current generation names an attempt that did not
 *     flip, whose leftovers the next attempt removes; 0 before the first
 */
public record ViewStatus(@Nullable ViewState state, @Nullable String lastError, @Nullable Instant at,
        @Nullable Generation generation, @Nullable Previous previous, List<Previous> earlier, @Nullable Lease lease,
        long version, long attempts) {

    /** The status of a view never run. */
    public static final ViewStatus NONE = new ViewStatus(null, null, null, null, null, null, 0, 0);

    /** The field of the generations before the previous one that readers may still hold. */
    public static final String EARLIER = "earlier";

    /**
     * A status with no generations before the previous one.
     * @param state the state
     * @param lastError why the view is errored
     * @param at when the state was written
     * @param generation the generation readers read
     * @param previous the generation before the last flip
     * @param lease the lease of a pass in groups
     * @param version the write version
     * @param attempts the count of write attempts
     */
    public ViewStatus(@Nullable ViewState state, @Nullable String lastError, @Nullable Instant at,
            @Nullable Generation generation, @Nullable Previous previous, @Nullable Lease lease, long version,
            long attempts) {
        this(state, lastError, at, generation, previous, List.of(), lease, version, attempts);
    }

    /** The field of the write version in the status. */
    public static final String VERSION = "version";

    /** The field of the count of write attempts in the status. */
    public static final String ATTEMPTS = "attempts";

    /** The field of the current generation in the status. */
    public static final String GENERATION_KEY = Generation.STATUS_FIELD;

    /**
     * A status at write version 0.
     * @param state the state
     * @param lastError why the view is errored
     * @param at when the state was written
     * @param generation the generation readers read
     * @param previous the generation before the last flip
     * @param lease the lease of a pass in groups
     */
    public ViewStatus(@Nullable ViewState state, @Nullable String lastError, @Nullable Instant at,
            @Nullable Generation generation, @Nullable Previous previous, @Nullable Lease lease) {
        this(state, lastError, at, generation, previous, lease, 0, 0);
    }

    private static final String STATE = "state";

    private static final String LAST_ERROR = "lastError";

    private static final String AT = "at";

    private static final String GENERATION = "generation";

    private static final String PREVIOUS = "previous";

    private static final String LEASE = "lease";

    /** Keeps {@code at} to the millisecond, as BSON stores it, and copies {@code earlier}. */
    public ViewStatus {
        at = millis(at);
        earlier = List.copyOf(earlier);
    }

    /**
     * Reads a stored status; missing or mistyped fields read as absent.
     * @param status the value of the status field, or null when the view has none
     * @return the status
     */
    public static ViewStatus fromBson(@Nullable BsonDocument status) {
        if (status == null) {
            return NONE;
        }
        BsonValue state = status.get(STATE);
        BsonValue lastError = status.get(LAST_ERROR);
        return new ViewStatus(state != null && state.isString() ? ViewState.fromStoredValue(state.asString().getValue()) : null,
                lastError != null && lastError.isString() ? lastError.asString().getValue() : null,
                instant(status.get(AT)), Generation.fromBson(status.get(GENERATION)), Previous.fromBson(status.get(PREVIOUS)),
                earlier(status.get(EARLIER)), Lease.fromBson(status.get(LEASE)), version(status.get(VERSION)),
                version(status.get(ATTEMPTS)));
    }

    // Entries that do not read as a generation with its time are left out: they hold nothing readable
    private static List<Previous> earlier(@Nullable BsonValue value) {
        if (value == null || !value.isArray()) {
            return List.of();
        }
        List<Previous> earlier = new ArrayList<>();
        for (BsonValue entry : value.asArray()) {
            Previous previous = Previous.fromBson(entry);
            if (previous != null && previous.generation() != null && previous.flippedAt() != null) {
                earlier.add(previous);
            }
        }
        return earlier;
    }

    /** The status as stored, without absent fields. */
    public BsonDocument toBson() {
        BsonDocument document = new BsonDocument();
        if (state != null) {
            document.append(STATE, new BsonString(state.storedValue()));
        }
        if (lastError != null) {
            document.append(LAST_ERROR, new BsonString(lastError));
        }
        if (at != null) {
            document.append(AT, date(at));
        }
        if (generation != null) {
            document.append(GENERATION, generation.toBson());
        }
        if (previous != null) {
            document.append(PREVIOUS, previous.toBson());
        }
        if (!earlier.isEmpty()) {
            document.append(EARLIER, earlierToBson(earlier));
        }
        if (lease != null) {
            document.append(LEASE, lease.toBson());
        }
        if (version != 0) {
            document.append(VERSION, new BsonInt64(version));
        }
        if (attempts != 0) {
            document.append(ATTEMPTS, new BsonInt64(attempts));
        }
        return document;
    }

    /**
     * Generations before the previous one as stored.
     * @param earlier the generations, oldest first
     * @return the array of the status field {@value #EARLIER}
     */
    public static BsonArray earlierToBson(List<Previous> earlier) {
        BsonArray array = new BsonArray();
        earlier.forEach(previous -> array.add(previous.toBson()));
        return array;
    }

    private static @Nullable Instant instant(@Nullable BsonValue value) {
        return value != null && value.isDateTime() ? Instant.ofEpochMilli(value.asDateTime().getValue()) : null;
    }

    private static long version(@Nullable BsonValue value) {
        return value != null && value.isNumber() ? value.asNumber().longValue() : 0;
    }

    private static BsonDateTime date(Instant instant) {
        return new BsonDateTime(instant.toEpochMilli());
    }

    /** BSON keeps dates to the millisecond: so does the status, so that what it stores it reads back equal. */
    private static @Nullable Instant millis(@Nullable Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MILLIS);
    }

    /**
     * A generation a flip superseded, with the server time of that flip: the one before the last
     * flip ({@code previous}), or one of those before it ({@code earlier}).
     * @param generation the superseded generation, null when the flip was the first
     * @param flippedAt the server time of the flip that superseded it
     */
    public record Previous(@Nullable Generation generation, @Nullable Instant flippedAt) {

        /** Keeps {@code flippedAt} to the millisecond, as BSON stores it. */
        public Previous {
            flippedAt = millis(flippedAt);
        }

        // Any document reads as a previous generation: a null generation means the first flip
        static @Nullable Previous fromBson(@Nullable BsonValue value) {
            if (value == null || !value.isDocument()) {
                return null;
            }
            BsonDocument document = value.asDocument();
            return new Previous(Generation.fromBson(document.get(GENERATION)), instant(document.get("flippedAt")));
        }

        /**
         * The generation as stored in the status.
         * @return the document {@code {generation, flippedAt}}
         */
        public BsonDocument toBson() {
            BsonDocument document = new BsonDocument(GENERATION,
                    generation == null ? BsonNull.VALUE : generation.toBson());
            if (flippedAt != null) {
                document.append("flippedAt", date(flippedAt));
            }
            return document;
        }
    }

    /**
     * The lease of a pass that writes row versions in groups.
     * @param owner who holds it (unique per pass)
     * @param until when it ends, in server time
     */
    public record Lease(String owner, Instant until) {

        /** Keeps {@code until} to the millisecond, as BSON stores it. */
        public Lease {
            Objects.requireNonNull(owner, "owner");
            until = Objects.requireNonNull(millis(until), "until");
        }

        // A lease missing any part cannot be renewed or checked: it reads as no lease
        static @Nullable Lease fromBson(@Nullable BsonValue value) {
            if (value == null || !value.isDocument()) {
                return null;
            }
            BsonDocument document = value.asDocument();
            BsonValue owner = document.get("owner");
            Instant until = instant(document.get("until"));
            if (owner == null || !owner.isString() || until == null) {
                return null;
            }
            return new Lease(owner.asString().getValue(), until);
        }

        BsonDocument toBson() {
            return new BsonDocument("owner", new BsonString(owner)).append("until", date(until));
        }
    }
}
