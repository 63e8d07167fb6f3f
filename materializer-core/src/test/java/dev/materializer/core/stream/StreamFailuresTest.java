package dev.materializer.core.stream;

import java.io.IOException;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoQueryException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.ServerAddress;
import dev.materializer.core.stream.StreamFailures.Next;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The classification of stream failures, over exceptions built as the driver builds them from a reply. */
class StreamFailuresTest {

    private static final ServerAddress SERVER = new ServerAddress("db.example", 27017);

    /** A failed aggregate: the driver's exception for an error reply. */
    private static MongoCommandException aggregateFailed(int code, String codeName, String... labels) {
        return new MongoCommandException(reply(code, codeName, labels), SERVER);
    }

    /** A failed getMore of an open cursor. */
    private static MongoQueryException getMoreFailed(int code, String codeName, String... labels) {
        return new MongoQueryException(reply(code, codeName, labels), SERVER);
    }

    private static BsonDocument reply(int code, String codeName, String... labels) {
        BsonArray errorLabels = new BsonArray();
        for (String label : labels) {
            errorLabels.add(new BsonString(label));
        }
        BsonDocument reply = new BsonDocument("ok", new BsonDouble(0)).append("code", new BsonInt32(code))
            .append("codeName", new BsonString(codeName))
            .append("errmsg", new BsonString(codeName + " for a test"));
        return labels.length == 0 ? reply : reply.append("errorLabels", errorLabels);
    }

    @ParameterizedTest(name = "{1} ({0})")
    @CsvSource({
        "286, ChangeStreamHistoryLost",
        "280, ChangeStreamFatalError",
        "136, CappedPositionLost",
        "40576, Location40576",
        "40585, Location40585"})
    void theServerSayingTheHistoryIsGoneLosesThePosition(int code, String codeName) {
        assertThat(StreamFailures.next(aggregateFailed(code, codeName))).isEqualTo(Next.HISTORY_LOST);
        assertThat(StreamFailures.next(getMoreFailed(code, codeName))).isEqualTo(Next.HISTORY_LOST);
    }

    @Test
    void anyErrorTheServerLabelsNonResumableLosesThePosition() {
        assertThat(StreamFailures.next(getMoreFailed(9999, "SomeFutureError", "NonResumableChangeStreamError")))
            .isEqualTo(Next.HISTORY_LOST);
    }

    @ParameterizedTest(name = "{1} ({0})")
    @CsvSource({
        "10107, NotWritablePrimary",
        "13435, NotPrimaryNoSecondaryOk",
        "11602, InterruptedDueToReplStateChange",
        "91, ShutdownInProgress",
        "189, PrimarySteppedDown",
        "6, HostUnreachable",
        "89, NetworkTimeout",
        "43, CursorNotFound",
        "50, MaxTimeMSExpired",
        "133, FailedToSatisfyReadPreference"})
    void aFailoverOrANetworkFaultBeforeTheFirstEventAfterAResumeKeepsTheToken(int code, String codeName) {
        MongoCommandException failure = aggregateFailed(code, codeName);

        assertThat(StreamFailures.next(failure)).isEqualTo(Next.RESUME);
        assertThat(StreamFailures.isTransient(failure)).isTrue();
    }

    @Test
    void anErrorLabelledResumableKeepsTheTokenWhateverItsCode() {
        MongoQueryException failure = getMoreFailed(12345, "SomethingNew", "ResumableChangeStreamError");

        assertThat(StreamFailures.next(failure)).isEqualTo(Next.RESUME);
        assertThat(StreamFailures.isTransient(failure)).isTrue();
    }

    @Test
    void theDriversOwnExceptionsOfAFailoverKeepTheToken() {
        MongoException[] failures = {
            new MongoNotPrimaryException(reply(10107, "NotWritablePrimary"), SERVER),
            new MongoSocketReadException("connection reset", SERVER, new IOException("reset")),
            new MongoTimeoutException("no primary within 30 s"),
            new MongoInterruptedException("interrupted", new InterruptedException())};
        for (MongoException failure : failures) {
            assertThat(StreamFailures.next(failure)).as(failure.toString()).isEqualTo(Next.RESUME);
            assertThat(StreamFailures.isTransient(failure)).as(failure.toString()).isTrue();
        }
    }

    @Test
    void aRefusalThatWillRepeatKeepsTheTokenButIsNotTransient() {
        MongoCommandException unknownStage = aggregateFailed(40324, "Location40324");
        MongoCommandException unauthorized = aggregateFailed(13, "Unauthorized");

        assertThat(StreamFailures.next(unknownStage)).isEqualTo(Next.RESUME);
        assertThat(StreamFailures.next(unauthorized)).isEqualTo(Next.RESUME);
        assertThat(StreamFailures.isTransient(unknownStage)).isFalse();
        assertThat(StreamFailures.isTransient(unauthorized)).isFalse();
    }

    @Test
    void anEventTooLargeToReadCannotBeResumedPast() {
        assertThat(StreamFailures.next(getMoreFailed(10334, "BSONObjectTooLarge"))).isEqualTo(Next.EVENT_TOO_LARGE);
    }
}
