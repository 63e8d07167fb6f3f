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
}
