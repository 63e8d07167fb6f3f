package dev.materializer.core.write;

import java.time.Instant;

import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Putting back a status an application's replace removed: as it was last read (its generation, the
 * generations before it, its state), past every attempt's number, never over a status written since,
 * and saying so when the target holds writes the status read does not account for.
 */
@MongoTest(MongoKind.IN_PROCESS)
class LostStatusInProcessTest {

    private static final Instant AT = Instant.parse("2030-05-01T10:15:30.123Z");

    private static final Instant FLIPPED = Instant.parse("2030-05-01T10:15:00Z");

    @Test
    void theStatusComesBackAsLastReadWithItsEarlierGenerationsButNoLeaseAndAVersionNoPassStartedFrom(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        fixture.target().insertOne(version("kept", 3, Long.MAX_VALUE));
        fixture.target().insertOne(version("closed-by-attempt-9", 3, 9));
        fixture.target().insertOne(version("added-by-attempt-8", 8, Long.MAX_VALUE));
        fixture.target().insertOne(version("other-tenant", 40, Long.MAX_VALUE).append("_part", new BsonString("globex")));
        BsonDocument lastSeen = lastSeen(5, 9).append("lastError", new BsonString("kept as it was"));

        LostStatus.Restored restored = new LostStatus(mongo.database(), fixture.settings).restore(view, lastSeen, AT);

        assertThat(restored).isEqualTo(LostStatus.Restored.RESTORED);
        ViewStatus status = new StatusStore(mongo.database(), fixture.settings).read(view);
        assertThat(status.generation()).isEqualTo(Generation.of(5));
        assertThat(status.previous()).isEqualTo(new ViewStatus.Previous(Generation.of(3), FLIPPED));
        assertThat(status.earlier()).containsExactly(new ViewStatus.Previous(Generation.of(2), FLIPPED.minusSeconds(1)));
        assertThat(status.state()).isEqualTo(ViewState.OK);
        assertThat(status.lastError()).isEqualTo("kept as it was");
        assertThat(status.attempts()).as("the next attempt takes a number no version carries").isEqualTo(9);
        assertThat(status.version()).as("no pass in flight started from it").isNegative();
        assertThat(status.lease()).isNull();
        BsonDocument stored = new StatusStore(mongo.database(), fixture.settings).readStored(view);
        assertThat(stored.getString(StatusStore.FINGERPRINT_FIELD).getValue()).isEqualTo("the run's");
        assertThat(stored.getDocument("covered")).isEqualTo(lastSeen.getDocument("covered"));
    }

    @Test
    void aVersionNumberedPastTheAttemptsOfTheStatusReadMayBeAFlipItNeverShowedAndIsSaid(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        fixture.target().insertOne(version("kept", 3, 11));
        fixture.target().insertOne(version("added-by-attempt-11", 11, Long.MAX_VALUE));

        LostStatus.Restored restored = new LostStatus(mongo.database(), fixture.settings)
            .restore(view, lastSeen(5, 6), AT);

        assertThat(restored).isEqualTo(LostStatus.Restored.MAY_BE_STALE);
        ViewStatus status = new StatusStore(mongo.database(), fixture.settings).read(view);
        assertThat(status.generation()).as("still a whole generation").isEqualTo(Generation.of(5));
        assertThat(status.attempts()).as("past every number in the target").isEqualTo(11);
    }

    @Test
    void anAttemptHoldingTheLeaseInTheStatusReadMayHaveFlippedSince(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        fixture.target().insertOne(version("added-by-attempt-6", 6, Long.MAX_VALUE));
        BsonDocument leased = lastSeen(5, 6).append("lease", new BsonDocument("owner", new BsonString("other/pass"))
            .append("until", new BsonDateTime(AT.toEpochMilli())));

        assertThat(new LostStatus(mongo.database(), fixture.settings).restore(view, leased, AT))
            .isEqualTo(LostStatus.Restored.MAY_BE_STALE);
    }

    @Test
    void aStatusWrittenSinceIsNeverOverwritten(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        new StatusStore(mongo.database(), fixture.settings).write(view, ViewState.ERRORED, "written by a pass", AT);

        LostStatus.Restored restored = new LostStatus(mongo.database(), fixture.settings)
            .restore(view, lastSeen(5, 5), AT);

        assertThat(restored).isEqualTo(LostStatus.Restored.STATUS_PRESENT);
        ViewStatus status = new StatusStore(mongo.database(), fixture.settings).read(view);
        assertThat(status.lastError()).isEqualTo("written by a pass");
        assertThat(status.generation()).isNull();
    }

    /** A status as the views stream read it before the replace. */
    private static BsonDocument lastSeen(long generation, long attempts) {
        return new ViewStatus(ViewState.OK, null, AT, Generation.of(generation),
                new ViewStatus.Previous(Generation.of(3), FLIPPED),
                java.util.List.of(new ViewStatus.Previous(Generation.of(2), FLIPPED.minusSeconds(1))), null, 12, attempts)
            .toBson()
            .append(StatusStore.FINGERPRINT_FIELD, new BsonString("the run's"))
            .append("covered", new BsonDocument("orders", new org.bson.BsonTimestamp(1700000000, 3)));
    }

    private static BsonDocument version(String id, long from, long to) {
        return new BsonDocument("_id", new BsonString(id)).append("_part", new BsonString("acme"))
            .append("_viewRow", new BsonString(id)).append("_viewFrom", new BsonInt64(from))
            .append("_viewTo", new BsonInt64(to)).append("_viewHash", new BsonString("h"));
    }
}
