package dev.materializer.core.stream;

import java.util.Set;

import com.mongodb.MongoException;
import com.mongodb.MongoExecutionTimeoutException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;

/**
 * Tells from a failed change stream's error what the stream does next: resume from its token
 * (almost always), or start from now because the server says its position can never be resumed.
 * Pure: it reads the code, the code name and the error labels the server sent.
 *
 * <p>The position is lost only when the server says so:
 * <ul>
 * <li>286 {@code ChangeStreamHistoryLost}: the resume point is no longer in the oplog;</li>
 * <li>280 {@code ChangeStreamFatalError}: the resume token was not found (4.2 and later);</li>
 * <li>any error labelled {@code NonResumableChangeStreamError}: the server's category of the two
 *     above (error_codes.yml);</li>
 * <li>136 {@code CappedPositionLost}: the oplog was overwritten under the cursor (the change
 *     streams specification's non-resumable codes);</li>
 * <li>40576 and 40585: the history-lost and token-not-found errors of servers before 4.2.</li>
 * </ul>
 * An event over 16 MB (10334 {@code BSONObjectTooLarge}) cannot be read past by resuming either:
 * the same event fails again. Every other error — not primary, recovering, network, timeouts,
 * interrupts, {@code ResumableChangeStreamError} — keeps the token.
 */
final class StreamFailures {

    /** Codes after which the token's history is gone. */
    static final Set<Integer> HISTORY_LOST_CODES = Set.of(286, 280, 136, 40576, 40585);

    /** The code of a document (here an event) over the BSON size limit. */
    static final int BSON_OBJECT_TOO_LARGE = 10334;

    /** The label the server puts on errors whose stream must not be resumed. */
    static final String NON_RESUMABLE_LABEL = "NonResumableChangeStreamError";

    /** The label the server (4.4 and later) puts on errors a change stream resumes after. */
    static final String RESUMABLE_LABEL = "ResumableChangeStreamError";

    /**
     * The resumable codes of servers before 4.4 (the change streams specification), with
     * {@code CursorNotFound} and {@code MaxTimeMSExpired}.
     */
    private static final Set<Integer> TRANSIENT_CODES = Set.of(6, 7, 43, 50, 63, 89, 91, 133, 150, 189, 234, 262,
            9001, 10107, 11600, 11602, 13388, 13435, 13436);

    /** What a stream does after a failure. */
    enum Next {
        /** Open again from the token it holds. */
        RESUME,
        /** The server no longer has the token's history: start from now, every view catches up. */
        HISTORY_LOST,
        /** An event too large to read: start from now past it, every view catches up. */
        EVENT_TOO_LARGE
    }

    private StreamFailures() {
    }

    /**
     * What the stream does after this failure.
     * @param failure what the driver threw
     * @return the next step
     */
    static Next next(MongoException failure) {
        if (HISTORY_LOST_CODES.contains(failure.getCode()) || failure.hasErrorLabel(NON_RESUMABLE_LABEL)) {
            return Next.HISTORY_LOST;
        }
        if (failure.getCode() == BSON_OBJECT_TOO_LARGE && !isTransient(failure)) {
            return Next.EVENT_TOO_LARGE;
        }
        return Next.RESUME;
    }

    /**
     * Whether the failure is of the deployment for a while (failover, network, load), as opposed to
     * a refusal that will repeat (a stage the server does not know, a missing privilege). Both keep
     * the token; a refusal also makes the stream choose its pipeline again.
     * @param failure what the driver threw
     * @return true for a passing failure
     */
    static boolean isTransient(MongoException failure) {
        return failure instanceof MongoSocketException || failure instanceof MongoTimeoutException
                || failure instanceof MongoExecutionTimeoutException || failure instanceof MongoNotPrimaryException
                || failure instanceof MongoNodeIsRecoveringException || failure instanceof MongoInterruptedException
                || failure.hasErrorLabel(RESUMABLE_LABEL) || failure.hasErrorLabel("RetryableWriteError")
                || TRANSIENT_CODES.contains(failure.getCode());
    }
}
