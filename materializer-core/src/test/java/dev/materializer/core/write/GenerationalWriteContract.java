package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The way to write without transactions: a whole new generation in groups under a lease, flipped
 * in by a compare-and-set, the previous one kept for its grace. Written once, run on each kind of
 * server with a runner that never uses transactions.
 */
abstract class GenerationalWriteContract {

    private static final Instant LONG_AGO = Instant.parse("2020-01-01T00:00:00Z");

    private static final Instant FAR_AHEAD = Instant.parse("2999-01-01T00:00:00Z");

    @Test
    void aChangedResultIsWrittenAsANewGenerationAndTheStatusFlipsToIt(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        fixture.order(2, "acme", "south", 7);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ObjectId first = fixture.status(view).generation();

        fixture.setAmount(2, 8);
        PassReport report = runner.run(view);

        assertThat(report.mode()).isEqualTo(WriteMode.GENERATION);
        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(report.rowsWritten()).isEqualTo(2);
        ViewStatus status = fixture.status(view);
        assertThat(status.generation()).isNotNull().isNotEqualTo(first);
        assertThat(status.previous()).isNotNull();
        assertThat(status.previous().generation()).isEqualTo(first);
        assertThat(status.previous().flippedAt()).isNotNull();
        assertThat(status.lease()).isNull();
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10), entry("south", 8));
    }

    @Test
    void anUnchangedResultWritesNoNewGeneration(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 2500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ViewStatus before = fixture.status(view);

        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.UNCHANGED);
        assertThat(report.rowsWritten()).isZero();
        assertThat(fixture.status(view)).usingRecursiveComparison().ignoringFields("version").isEqualTo(before);
        assertThat(fixture.status(view).version()).as("confirmed: the fence moved").isEqualTo(before.version() + 1);
        assertThat(fixture.allRows("acme")).hasSize(2500);
    }

    @Test
    void aPassThatStartedBeforeAnotherPassWroteTheViewCannotFlipOverIt(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 3, 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ViewStatus stale = fixture.status(view);
        // Another pass moved the version without moving the generation, as a transaction or a
        // confirmation of an unchanged result does.
        fixture.flip().confirm(view, stale.generation(), stale.version());
        fixture.setAmount(1, 99);

        assertThatSuperseded(() -> fixture.generationalWriter()
            .write(view, stale.generation(), stale.version(), List.of(stale.generation())));

        ViewStatus now = fixture.status(view);
        assertThat(now.generation()).as("nothing flipped").isEqualTo(stale.generation());
        assertThat(now.version()).isEqualTo(stale.version() + 1);
        assertThat(now.lease()).isNull();
    }

    @Test
    void aConfirmationFromAWriteVersionAnotherPassMovedFails(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 3, 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        fixture.generationalRunner().run(view);
        ViewStatus status = fixture.status(view);

        assertThat(fixture.flip().confirm(view, status.generation(), status.version())).isTrue();
        assertThat(fixture.flip().confirm(view, status.generation(), status.version()))
            .as("the second pass started from the same version").isFalse();
    }

    @Test
    void aChangeDeepInALargeResultCarriesTheEqualRowsIntoTheNewGeneration(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 2500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);

        fixture.setAmount(2300, 2);
        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(report.rowsWritten()).isEqualTo(2500);
        assertThat(report.rowsRemoved()).isZero();
        List<Document> rows = fixture.read(view);
        assertThat(rows).hasSize(2500);
        assertThat(rows).allSatisfy(row -> {
            Object id = row.get("_id", Document.class).get("id");
            assertThat(row.get("amount")).isEqualTo(Integer.valueOf(2300).equals(id) ? 2 : 1);
            assertThat(row).containsEntry(ViewFilter.GENERATION_FIELD, fixture.status(view).generation());
        });
    }

    @Test
    void aResultThatLostARowButIsOtherwiseEqualIsWrittenWithoutIt(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 1500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);

        fixture.source().deleteOne(Filters.eq("_id", 1499));
        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(report.rowsRemoved()).isEqualTo(1);
        assertThat(fixture.read(view)).hasSize(1499);
    }

    @Test
    void thePreviousGenerationStaysWithinItsGraceSoItsReadersCanFinish(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo,
                MaterializerOptions.builder().instanceId("test").generationGrace(Duration.ofHours(1)).build());
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ObjectId first = fixture.status(view).generation();
        fixture.setAmount(1, 11);
        runner.run(view);

        runner.sweep(view);
        fixture.setAmount(1, 12);
        runner.run(view);

        assertThat(rowsOf(fixture, first)).isEqualTo(1);
    }

    @Test
    void thePreviousGenerationIsSweptOnceItsGraceHasPassed(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo,
                MaterializerOptions.builder().instanceId("test").generationGrace(Duration.ZERO).build());
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ObjectId first = fixture.status(view).generation();
        fixture.setAmount(1, 11);
        runner.run(view);
        assertThat(rowsOf(fixture, first)).isEqualTo(1);

        runner.sweep(view);

        assertThat(rowsOf(fixture, first)).isZero();
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 11));
    }

    @Test
    void aLiveLeaseOfAnotherPassMakesThePassGiveWayAndNothingFlips(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ObjectId current = fixture.status(view).generation();
        ObjectId theirs = new ObjectId();
        fixture.orphanRows("acme", theirs, 3);
        fixture.lease(view, "other-instance/" + theirs.toHexString(), theirs, FAR_AHEAD);

        fixture.setAmount(1, 11);
        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.SUPERSEDED);
        assertThat(report.error()).isEqualTo("a pass of another instance holds the view");
        assertThat(fixture.status(view).generation()).isEqualTo(current);
        assertThat(fixture.status(view).lease().owner()).startsWith("other-instance/");
        assertThat(rowsOf(fixture, theirs)).as("the rows of the live lease's generation").isEqualTo(3);
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10));
    }

    @Test
    void theGenerationOfALiveLeaseSurvivesTheSweep(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ObjectId theirs = ViewFixture.generationMadeAt(LONG_AGO);
        fixture.orphanRows("acme", theirs, 3);
        fixture.lease(view, "other", theirs, FAR_AHEAD);

        runner.sweep(view);

        assertThat(rowsOf(fixture, theirs)).isEqualTo(3);
    }

    @Test
    void theRowsOfAPassWhoseLeaseEndedAreRemovedOnTheNextRun(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        // A pass that died: its lease was taken long ago and ended
        ObjectId dead = ViewFixture.generationMadeAt(LONG_AGO);
        fixture.orphanRows("acme", dead, 3);
        fixture.lease(view, "dead-instance/" + dead.toHexString(), dead, LONG_AGO.plusSeconds(60));

        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.UNCHANGED);
        assertThat(rowsOf(fixture, dead)).isZero();
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10));
    }

    @Test
    void rowsOfAnUnnamedGenerationMadeWithinThePassLeaseSurviveTheSweep(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        // Another pass may have made it after this pass read the status, and be taking its lease now
        ObjectId young = new ObjectId();
        ObjectId old = ViewFixture.generationMadeAt(LONG_AGO);
        fixture.orphanRows("acme", young, 2);
        fixture.orphanRows("acme", old, 2);

        runner.sweep(view);

        assertThat(rowsOf(fixture, young)).isEqualTo(2);
        assertThat(rowsOf(fixture, old)).isZero();
    }

    @Test
    void aFlipFromAGenerationThatChangedMeanwhileGivesWayAndReleasesTheLease(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ObjectId startedFrom = fixture.status(view).generation();
        fixture.setAmount(1, 11);
        runner.run(view);
        ObjectId newer = fixture.status(view).generation();

        fixture.setAmount(1, 12);
        List<ObjectId> generations = List.of(newer);
        assertThatSuperseded(() -> fixture.generationalWriter().write(view, startedFrom, fixture.status(view).version(), generations));

        ViewStatus status = fixture.status(view);
        assertThat(status.generation()).isEqualTo(newer);
        assertThat(status.lease()).isNull();
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 11));
    }

    @Test
    void aTargetIdThatIgnoresTheGenerationErrorsAViewThatMustBeWrittenInGroups(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder()
            .instanceId("test")
            .targetId((rowId, partition, generation) -> new BsonDocument("p", new BsonString(partition)).append("id", rowId))
            .build());
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);

        PassReport report = fixture.generationalRunner().run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.ERRORED);
        assertThat(report.error()).isNotBlank();
        assertThat(fixture.target().countDocuments()).isZero();
        assertThat(fixture.status(view).lease()).isNull();
    }

    @Test
    void readersAlwaysSeeExactlyOneWholeGenerationWhileALargeOneIsWritten(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder()
            .instanceId("test")
            .maxTransactionRows(10)
            .generationGrace(Duration.ofHours(1))
            .build());
        int size = 3500;
        fixture.orders("acme", size, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.runner();
        runner.run(view);
        fixture.source().updateMany(new BsonDocument(), Updates.set("amount", 2));

        CompletableFuture<PassReport> pass = CompletableFuture.supplyAsync(() -> runner.run(view));
        Set<Object> amountsSeen = new HashSet<>();
        int reads = 0;
        do {
            Document document = fixture.database.getCollection("_aggregations")
                .find(new Document("_id", "amounts"))
                .first();
            Object generation = document.get("_materializerStatus", Document.class).get("generation");
            List<Document> rows = fixture.database.getCollection(ViewFixture.TARGET)
                .find(ViewFilter.of(document))
                .into(new ArrayList<>());
            assertThat(rows).hasSize(size);
            assertThat(rows).allSatisfy(row -> assertThat(row.get(ViewFilter.GENERATION_FIELD)).isEqualTo(generation));
            Set<Object> amounts = new HashSet<>();
            rows.forEach(row -> amounts.add(row.get("amount")));
            assertThat(amounts).as("one read sees one version of every row").hasSize(1);
            amountsSeen.addAll(amounts);
            reads++;
        }
        while (!pass.isDone());

        assertThat(pass.get(1, TimeUnit.MINUTES).outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(reads).isPositive();
        assertThat(amountsSeen).isSubsetOf(1, 2);
        assertThat(fixture.readField(view, "amount").values()).containsOnly(2);
    }

    @Test
    void aPassWhoseLeaseIsTakenOverGivesWayAtItsNextRenewalAndNothingFlips(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 3500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.generationalRunner();
        runner.run(view);
        ObjectId current = fixture.status(view).generation();
        fixture.source().updateMany(new BsonDocument(), Updates.set("amount", 2));
        String statusField = fixture.options.statusField();

        CompletableFuture<PassReport> pass = CompletableFuture.supplyAsync(() -> runner.run(view));
        boolean takenOver = false;
        while (!takenOver && !pass.isDone()) {
            // As an instance that found the lease ended would: it takes the view over
            takenOver = fixture.views()
                .updateOne(Filters.and(Filters.eq("_id", "amounts"), Filters.exists(statusField + ".lease")),
                        Updates.set(statusField + ".lease.owner", "usurper"))
                .getModifiedCount() == 1;
        }
        PassReport report = pass.get(1, TimeUnit.MINUTES);

        assertThat(takenOver).as("the lease was taken over while the pass wrote").isTrue();
        assertThat(report.outcome()).isEqualTo(PassOutcome.SUPERSEDED);
        assertThat(report.error()).isEqualTo("the pass lost its lease");
        assertThat(fixture.status(view).generation()).isEqualTo(current);
        assertThat(fixture.status(view).lease().owner()).as("not released: it is not the pass's").isEqualTo("usurper");
        assertThat(fixture.readField(view, "amount").values()).containsOnly(1);
    }

    @Test
    void aLeaseIsTakenOnlyWhenNoLiveLeaseHoldsTheView(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewLeases leases = fixture.leases();

        assertThat(leases.take(view, "first", new ObjectId())).isTrue();
        assertThat(leases.take(view, "second", new ObjectId())).isFalse();
        fixture.lease(view, "first", new ObjectId(), LONG_AGO);
        assertThat(leases.take(view, "second", new ObjectId())).as("after the first lease ended").isTrue();
        assertThat(fixture.status(view).lease().owner()).isEqualTo("second");
        assertThat(fixture.status(view).lease().until()).isAfter(Instant.now().minusSeconds(3600));
    }

    @Test
    void aLeaseIsRenewedOnlyByItsOwnerWhileItIsLive(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewLeases leases = fixture.leases();
        leases.take(view, "mine", new ObjectId());

        assertThat(leases.renew(view, "someone-else")).isFalse();
        assertThat(leases.renew(view, "mine")).isTrue();
        fixture.lease(view, "mine", new ObjectId(), LONG_AGO);
        assertThat(leases.renew(view, "mine")).as("after it ended").isFalse();
    }

    @Test
    void aLeaseIsReleasedOnlyByItsOwner(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewLeases leases = fixture.leases();
        leases.take(view, "mine", new ObjectId());

        leases.release(view, "someone-else");
        assertThat(fixture.status(view).lease()).isNotNull();
        leases.release(view, "mine");
        assertThat(fixture.status(view).lease()).isNull();
    }

    @Test
    void theFlipNeedsTheLiveLeaseOfThePass(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ObjectId generation = new ObjectId();
        fixture.leases().take(view, "mine", generation);
        fixture.lease(view, "mine", generation, LONG_AGO);
        assertThat(fixture.flip().flip(view, null, 0, generation, "mine")).as("with its lease ended").isFalse();

        fixture.lease(view, "theirs", generation, FAR_AHEAD);
        assertThat(fixture.flip().flip(view, null, 0, generation, "mine")).as("with another's lease").isFalse();

        fixture.lease(view, "mine", generation, FAR_AHEAD);
        assertThat(fixture.flip().flip(view, null, 0, generation, "mine")).isTrue();
        assertThat(fixture.status(view).generation()).isEqualTo(generation);
        assertThat(fixture.status(view).lease()).isNull();
        assertThat(fixture.status(view).previous().generation()).isNull();
    }

    private static long rowsOf(ViewFixture fixture, ObjectId generation) {
        return fixture.target().countDocuments(Filters.eq(ViewFilter.GENERATION_FIELD, generation));
    }

    private static void assertThatSuperseded(ThrowingWrite write) throws Exception {
        try {
            write.run();
        }
        catch (PassSupersededException expected) {
            assertThat(expected.getMessage()).contains("generation");
            return;
        }
        throw new AssertionError("the pass did not give way");
    }

    @FunctionalInterface
    private interface ThrowingWrite {

        WriteOutcome run() throws Exception;
    }
}
