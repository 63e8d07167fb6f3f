package dev.materializer.core.write;

import java.time.Instant;

import dev.materializer.core.view.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Putting back a status an application's replace removed: at the engine's generation, past every attempt's number, never over a status written since. */
@MongoTest(MongoKind.IN_PROCESS)
class LostStatusInProcessTest {

    private static final Instant AT = Instant.parse("2030-05-01T10:15:30.123Z");

    @Test
    void theStatusComesBackAtTheGenerationWithAttemptsPastEveryVersionInTheTarget(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        fixture.target().insertOne(version("kept", 3, Long.MAX_VALUE));
        fixture.target().insertOne(version("closed-by-attempt-9", 3, 9));
        fixture.target().insertOne(version("added-by-attempt-8", 8, Long.MAX_VALUE));
        fixture.target().insertOne(version("other-tenant", 40, Long.MAX_VALUE).append("_part", new BsonString("globex")));

        boolean restored = new LostStatus(mongo.database(), fixture.options).restore(view, Generation.of(5), AT);

        assertThat(restored).isTrue();
        ViewStatus status = new StatusStore(mongo.database(), fixture.options).read(view);
        assertThat(status.generation()).isEqualTo(Generation.of(5));
        assertThat(status.state()).isEqualTo(ViewState.OK);
        assertThat(status.attempts()).as("the next attempt takes a number no version carries").isEqualTo(9);
        assertThat(status.version()).as("no pass in flight started from it").isNegative();
        BsonDocument stored = new StatusStore(mongo.database(), fixture.options).readStored(view);
        assertThat(stored.getString(StatusStore.FINGERPRINT_FIELD).getValue()).isEqualTo(view.fingerprint());
    }

    @Test
    void aStatusWrittenSinceIsNeverOverwritten(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        new StatusStore(mongo.database(), fixture.options).write(view, ViewState.ERRORED, "written by a pass", AT);

        boolean restored = new LostStatus(mongo.database(), fixture.options).restore(view, Generation.of(5), AT);

        assertThat(restored).isFalse();
        ViewStatus status = new StatusStore(mongo.database(), fixture.options).read(view);
        assertThat(status.lastError()).isEqualTo("written by a pass");
        assertThat(status.generation()).isNull();
    }

    private static BsonDocument version(String id, long from, long to) {
        return new BsonDocument("_id", new BsonString(id)).append("_part", new BsonString("acme"))
            .append("_viewRow", new BsonString(id)).append("_viewFrom", new BsonInt64(from))
            .append("_viewTo", new BsonInt64(to)).append("_viewHash", new BsonString("h"));
    }
}
