package dev.materializer.core.write;

import java.util.Set;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.MongoWriteException;
import org.jspecify.annotations.Nullable;

/** Tells the failures of MongoDB apart: the deployment's (thrown on) from the view's (its error). */
final class MongoFailures {

    /** The server's code of a write conflict between transactions. */
    static final int WRITE_CONFLICT = 112;

    private MongoFailures() {
    }

    /**
     * True when the deployment failed, not the view: unreachable, no primary, interrupted, or no
     * majority to acknowledge a write. Such a failure says nothing about the view, so it must not
     * make the view errored.
     */
    static boolean isInfrastructure(MongoException failure) {
        return failure instanceof MongoSocketException || failure instanceof MongoTimeoutException
                || failure instanceof MongoNotPrimaryException || failure instanceof MongoNodeIsRecoveringException
                || failure instanceof MongoInterruptedException || failure.hasErrorLabel("RetryableWriteError")
                || failure.hasErrorLabel("TransientTransactionError") || TRANSIENT_CODES.contains(failure.getCode())
                || isWriteConcernOnly(failure) || !(failure instanceof MongoServerException)
                || isWriteErrorOfNoRow(failure);
    }

    /**
     * Codes the server gives for a state that passes (a cursor the server dropped, a lock or a time
     * limit of the server's own, a conflict with another writer, an election): the request would
     * succeed later, so it says nothing of the view. A pipeline over the view's {@code max-time}
     * (MaxTimeMSExpired, 50) is not among them: that is the view's limit.
     */
    private static final Set<Integer> TRANSIENT_CODES = Set.of(6, 7, 24, 43, 46, 89, 91, 112, 133,
            134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436);

    /**
     * The codes of a write error that say something of the row written (its key, size, fields or
     * the collection's validator): the view's problem. Any other write error (an unknown error, an
     * interruption, a conflict) says nothing of the row, so the write is tried again rather than
     * the view marked errored: failing safe means more passes, never fewer.
     */
    private static final Set<Integer> ROW_ERRORS = Set.of(2, 14, 52, 55, 56, 57, 121, 10334,
            11000, 11001, 17419, 17420);

    private static boolean isWriteErrorOfNoRow(MongoException failure) {
        if (failure instanceof MongoBulkWriteException bulk) {
            return !bulk.getWriteErrors().isEmpty()
                    && bulk.getWriteErrors().stream().noneMatch(error -> ROW_ERRORS.contains(error.getCode()));
        }
        if (failure instanceof MongoWriteException write) {
            return !ROW_ERRORS.contains(write.getError().getCode());
        }
        return false;
    }

    /**
     * A write the server applied but a majority did not acknowledge in time (the engine writes with
     * majority): the deployment lacks members, the rows are fine.
     */
    private static boolean isWriteConcernOnly(MongoException failure) {
        if (failure instanceof MongoWriteConcernException) {
            return true;
        }
        return failure instanceof MongoBulkWriteException bulk && bulk.getWriteErrors().isEmpty()
                && bulk.getWriteConcernError() != null;
    }

    /**
     * True for a write conflict with another writer (code 112). The label
     * {@code TransientTransactionError} is not enough: a transaction over its time limit has it too,
     * and that view must go in groups instead.
     */
    static boolean isWriteConflict(@Nullable Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof MongoBulkWriteException bulk
                    && bulk.getWriteErrors().stream().anyMatch(error -> error.getCode() == WRITE_CONFLICT)) {
                return true;
            }
            if (cause instanceof MongoWriteException write && write.getError().getCode() == WRITE_CONFLICT) {
                return true;
            }
            if (cause instanceof MongoCommandException command && "WriteConflict".equals(command.getErrorCodeName())) {
                return true;
            }
            if (cause instanceof MongoException mongo && mongo.getCode() == WRITE_CONFLICT) {
                return true;
            }
        }
        return false;
    }

    /** The server's own words, without the driver's wrapping and the full response. */
    static String messageOf(MongoException failure) {
        if (failure instanceof MongoCommandException command && command.getErrorMessage() != null
                && !command.getErrorMessage().isBlank()) {
            return command.getErrorMessage();
        }
        if (failure instanceof MongoBulkWriteException bulk && !bulk.getWriteErrors().isEmpty()) {
            return bulk.getWriteErrors().get(0).getMessage();
        }
        if (failure instanceof MongoWriteException write) {
            return write.getError().getMessage();
        }
        return String.valueOf(failure.getMessage());
    }
}
