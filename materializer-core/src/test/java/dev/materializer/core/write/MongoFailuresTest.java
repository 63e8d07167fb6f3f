package dev.materializer.core.write;

import java.util.List;
import java.util.Set;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.ServerAddress;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.bulk.WriteConcernError;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MongoFailuresTest {

    private static final ServerAddress SERVER = new ServerAddress("db.example", 27017);

    private static final WriteConcernError NO_MAJORITY = new WriteConcernError(64, "WriteConcernTimeout",
            "waiting for replication timed out", new BsonDocument());

    @Test
    void aMajorityThatDidNotAcknowledgeIsTheDeploymentsFailureNotTheViews() {
        assertThat(MongoFailures.isInfrastructure(new MongoWriteConcernException(NO_MAJORITY, SERVER))).isTrue();
        assertThat(MongoFailures.isInfrastructure(new MongoBulkWriteException(BulkWriteResult.unacknowledged(),
                List.of(), NO_MAJORITY, SERVER, Set.of()))).isTrue();
    }

    @Test
    void aRowTheServerRefusesIsTheViewsFailure() {
        BulkWriteError tooLarge = new BulkWriteError(10334, "object to insert too large", new BsonDocument(), 0);
        assertThat(MongoFailures.isInfrastructure(new MongoBulkWriteException(BulkWriteResult.unacknowledged(),
                List.of(tooLarge), NO_MAJORITY, SERVER, Set.of()))).isFalse();
        assertThat(MongoFailures.isInfrastructure(new MongoCommandException(
                BsonDocument.parse("{ok: 0, code: 40324, codeName: 'Location40324', errmsg: 'Unrecognized pipeline stage'}"),
                SERVER))).isFalse();
    }

    @Test
    void aWriteErrorThatSaysNothingOfTheRowIsTriedAgainNotTheViewsError() {
        BulkWriteError unknown = new BulkWriteError(8, "Unknown error", new BsonDocument(), 0);
        BulkWriteError duplicate = new BulkWriteError(11000, "E11000 duplicate key", new BsonDocument(), 1);
        assertThat(MongoFailures.isInfrastructure(new MongoBulkWriteException(BulkWriteResult.unacknowledged(),
                List.of(unknown), null, SERVER, Set.of()))).as("an unknown error of the server").isTrue();
        assertThat(MongoFailures.isInfrastructure(new MongoBulkWriteException(BulkWriteResult.unacknowledged(),
                List.of(unknown, duplicate), null, SERVER, Set.of()))).as("a duplicate key among them").isFalse();
    }

    @Test
    void aFailureTheServerCallsTransientIsTriedAgainNotTheViewsError() {
        for (String transient_ : List.of("{ok: 0, code: 43, codeName: 'CursorNotFound', errmsg: 'cursor id 7 not found'}",
                "{ok: 0, code: 262, codeName: 'ExceededTimeLimit', errmsg: 'operation exceeded time limit'}",
                "{ok: 0, code: 24, codeName: 'LockTimeout', errmsg: 'lock timeout'}",
                "{ok: 0, code: 112, codeName: 'WriteConflict', errmsg: 'write conflict'}",
                "{ok: 0, code: 2, codeName: 'BadValue', errmsg: 'x', errorLabels: ['TransientTransactionError']}")) {
            assertThat(MongoFailures.isInfrastructure(new MongoCommandException(BsonDocument.parse(transient_), SERVER)))
                .as(transient_).isTrue();
        }
        assertThat(MongoFailures.isInfrastructure(new MongoCommandException(
                BsonDocument.parse("{ok: 0, code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit'}"),
                SERVER))).as("a pipeline over max-time is the view's limit").isFalse();
    }
}
