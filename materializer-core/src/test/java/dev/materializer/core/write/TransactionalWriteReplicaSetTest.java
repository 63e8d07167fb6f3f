package dev.materializer.core.write;

import com.mongodb.client.ClientSession;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.testing.Capability;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.RequiresCapability;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The way to write a small diff on a replica set: the new row versions, the closing of the
 * superseded ones and the flip in one transaction; a write conflict gives way; any other failure of
 * the transaction falls back to groups under a lease; a diff over {@code maxTransactionRows} goes in
 * groups. Needs a server with transactions (MongoDB 6.0 or later as a replica set), so it is skipped
 * where there is none.
 */
@MongoTest(MongoKind.REPLICA_SET)
@RequiresCapability(Capability.TRANSACTIONS)
class TransactionalWriteReplicaSetTest {

    @Test
    void aSmallDiffIsWrittenAndFlippedInOneTransaction(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.transactionalRunner();

        PassReport first = runner.run(view);
        ViewStatus named = fixture.status(view);
        fixture.setAmount(2, 8);
        PassReport second = runner.run(view);

        assertThat(first.mode()).isEqualTo(WriteMode.TRANSACTION);
        assertThat(first.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(named.generation()).isEqualTo(Generation.of(1));
        assertThat(named.lease()).isNull();
        assertThat(second.mode()).isEqualTo(WriteMode.TRANSACTION);
        assertThat(second.rowsWritten()).as("only the row that changed").isEqualTo(1);
        assertThat(fixture.status(view).generation()).isEqualTo(Generation.of(2));
        assertThat(fixture.status(view).previous().generation()).isEqualTo(named.generation());
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10), entry("south", 8));
        assertThat(fixture.readField(view, named.generation(), "total"))
            .containsExactly(entry("north", 10), entry("south", 7));
    }

    @Test
    void aRowTheResultNoLongerHasIsClosedInTheTransaction(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.transactionalRunner();
        runner.run(view);

        fixture.source().deleteOne(Filters.eq("_id", 2));
        PassReport report = runner.run(view);

        assertThat(report.mode()).isEqualTo(WriteMode.TRANSACTION);
        assertThat(report.rowsWritten()).isZero();
        assertThat(report.rowsRemoved()).isEqualTo(1);
        assertThat(fixture.read(view)).hasSize(1);
    }

    @Test
    void aWriteConflictWithAnotherTransactionOnTheViewMakesThePassGiveWay(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.transactionalRunner();
        runner.run(view);
        Generation generation = fixture.status(view).generation();
        fixture.setAmount(1, 11);

        PassReport report;
        try (ClientSession other = mongo.client().startSession()) {
            other.startTransaction();
            fixture.views().updateOne(other, Filters.eq("_id", "revenue"), Updates.set("touchedBy", "other"));
            report = runner.run(view);
            other.abortTransaction();
        }

        assertThat(report.outcome()).isEqualTo(PassOutcome.SUPERSEDED);
        assertThat(report.error()).contains("at the same time");
        assertThat(fixture.status(view).generation()).isEqualTo(generation);
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10));
    }

    @Test
    void aTransactionThatFailsForAnotherReasonFallsBackToGroups(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        // No transaction may write a capped collection; a pass in groups may
        mongo.database().createCollection(ViewFixture.TARGET,
                new CreateCollectionOptions().capped(true).sizeInBytes(1 << 20));
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);

        PassReport report = fixture.transactionalRunner().run(view);

        assertThat(report.mode()).isEqualTo(WriteMode.GENERATION);
        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10));
    }

    @Test
    void aDiffOverMaxTransactionRowsGoesInGroupsEvenInASmallView(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo,
                MaterializerOptions.builder().instanceId("test").maxTransactionRows(2).build());
        fixture.orders("acme", 5, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.transactionalRunner();

        PassReport first = runner.run(view);
        fixture.setAmount(0, 2);
        PassReport second = runner.run(view);

        assertThat(first.mode()).as("5 rows to write").isEqualTo(WriteMode.GENERATION);
        assertThat(second.mode()).as("1 row to write").isEqualTo(WriteMode.TRANSACTION);
        assertThat(fixture.read(view)).hasSize(5);
    }

    @Test
    void aTransactionGivesWayWhenTheGenerationChangedSinceThePassReadIt(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewStatus start = fixture.status(view);
        fixture.views().updateOne(new BsonDocument("_id", new BsonString("revenue")), new BsonDocument("$set",
                new BsonDocument(fixture.options.statusField() + ".generation", new org.bson.BsonInt64(7))));

        try {
            fixture.writer(true).write(view, start, fixture.serverNow(), fixture.generations("acme"));
            throw new AssertionError("the pass did not give way");
        }
        catch (PassSupersededException expected) {
            assertThat(fixture.status(view).generation()).isEqualTo(Generation.of(7));
            assertThat(fixture.target().countDocuments()).isZero();
        }
    }

    @Test
    void aFlipOfAPassInGroupsCannotLandOverATransactionThatWroteAfterItStarted(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.transactionalRunner();
        runner.run(view);
        ViewStatus startedFrom = fixture.status(view);
        long stale = fixture.leases().take(view, "stale-pass", startedFrom.generation(), startedFrom.version(), fixture.serverTime());
        assertThat(stale).isPositive();
        fixture.leases().release(view, "stale-pass");

        fixture.order(2, "acme", "north", 5);
        assertThat(runner.run(view).mode()).isEqualTo(WriteMode.TRANSACTION);

        assertThat(fixture.flip().flip(view, startedFrom, fixture.serverNow(), stale, "stale-pass"))
            .as("the transaction moved the write version").isFalse();
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 15));
    }

    @Test
    void aGroupOfAPassPausedPastItsLeaseNeverLandsWhereTheDeploymentHasTransactions(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder().instanceId("test")
            .maxTransactionRows(10).generationGrace(java.time.Duration.ofHours(1)).build());
        fixture.orders("acme", 1500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        fixture.transactionalRunner().run(view);
        ViewStatus start = fixture.status(view);
        fixture.source().updateMany(new BsonDocument(), Updates.set("amount", 2));
        java.util.concurrent.atomic.AtomicLong landed = new java.util.concurrent.atomic.AtomicLong(-1);
        WriterGate gate = new WriterGate(2, attempt -> landed.set(fixture.target().countDocuments(
                Filters.or(Filters.eq(ViewFilter.FROM_FIELD, attempt), Filters.eq(ViewFilter.TO_FIELD, attempt)))));
        java.util.concurrent.CompletableFuture<Throwable> late = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                fixture.writer(true, gate).write(view, start, fixture.serverNow(), fixture.generations("acme"));
                return null;
            }
            catch (Exception ex) {
                return ex;
            }
        });
        gate.awaitHeld();
        fixture.expireLease(view);
        fixture.source().updateOne(Filters.eq("_id", 7), Updates.set("amount", 3));
        assertThat(fixture.transactionalRunner().run(view).outcome()).isEqualTo(PassOutcome.CHANGED);
        java.util.Map<Object, Object> written = fixture.readField(view, "amount");
        long versions = fixture.target().countDocuments();

        gate.release();
        Throwable failure = late.get(1, java.util.concurrent.TimeUnit.MINUTES);

        assertThat(failure).isInstanceOf(PassSupersededException.class);
        assertThat(landed.get()).as("versions of the late pass when it knew it had lost the view: none landed").isZero();
        assertThat(fixture.target().countDocuments()).isEqualTo(versions);
        assertThat(fixture.readField(view, "amount")).isEqualTo(written);
    }

    @Test
    void aPassWaitsUntilTheServerReadsAtTheTimeOfItsChangesAndNotBeyond(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewRunner runner = fixture.transactionalRunner();
        org.bson.BsonTimestamp written;
        try (ClientSession session = mongo.client().startSession()) {
            fixture.source().insertOne(session, new BsonDocument("_id", new BsonString("o-causal"))
                .append("_part", new BsonString("acme")));
            written = session.getOperationTime();
        }

        runner.awaitClusterTime(written);

        org.bson.BsonTimestamp future = new org.bson.BsonTimestamp(written.getTime() + 3600, 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> runner.awaitClusterTime(future))
            .isInstanceOf(com.mongodb.MongoException.class);
    }
}
