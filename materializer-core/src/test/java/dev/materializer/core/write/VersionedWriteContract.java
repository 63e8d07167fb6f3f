package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Row versions written in groups under a lease, without transactions: writes in proportion to the
 * diff, a flip by compare-and-set to the next generation, readers of a generation that never see
 * another, the previous generation readable for its grace, attempts that did not flip undone by
 * the next. Written once, run on each kind of server with a runner that never uses transactions.
 */
abstract class VersionedWriteContract {

    private static final Instant LONG_AGO = Instant.parse("2020-01-01T00:00:00Z");

    private static final Instant FAR_AHEAD = Instant.parse("2999-01-01T00:00:00Z");

    @Test
    void aChangedResultBecomesTheNextGenerationAndTheStatusFlipsToIt(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        Generation first = fixture.status(view).generation();

        fixture.setAmount(2, 8);
        PassReport report = runner.run(view);

        assertThat(report.mode()).isEqualTo(WriteMode.GENERATION);
        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(report.rowsWritten()).as("only the row that changed").isEqualTo(1);
        ViewStatus status = fixture.status(view);
        assertThat(status.generation().number()).isGreaterThan(first.number());
        assertThat(status.previous().generation()).isEqualTo(first);
        assertThat(status.previous().flippedAt()).isNotNull();
        assertThat(status.lease()).isNull();
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10), entry("south", 8));
    }

    @Test
    void aOneRowChangeInALargeViewWritesOneVersionAndClosesOne(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 2500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);

        fixture.setAmount(2300, 2);
        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(report.rowsWritten()).isEqualTo(1);
        assertThat(report.rowsRemoved()).isZero();
        assertThat(fixture.allRows("acme")).as("the closed version stays for the grace").hasSize(2501);
        Generation current = fixture.status(view).generation();
        List<Document> rows = fixture.read(view);
        assertThat(rows).hasSize(2500);
        assertThat(rows).allSatisfy(row -> {
            Object id = row.get("_id", Document.class).get("id");
            assertThat(row.get("amount")).isEqualTo(Integer.valueOf(2300).equals(id) ? 2 : 1);
            assertThat(row.getLong(ViewFilter.FROM_FIELD)).isEqualTo(Integer.valueOf(2300).equals(id)
                    ? current.number() : fixture.status(view).previous().generation().number());
        });
    }

    @Test
    void aKeyScopedPassReplacesOnlyTheRowsOfItsKeysAndEqualsAWholePass(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 2500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        fixture.setAmount(7, 5);
        fixture.source().deleteOne(Filters.eq("_id", 9));
        KeyScope scope = new KeyScope(List.of(BsonDocument.parse("{$match: {_id: {$in: [7, 9]}}}"),
                BsonDocument.parse(ViewFixture.AMOUNTS[0])), List.of(new BsonInt32(7), new BsonInt32(9)), "2 keys of _id");

        PassReport report = runner.run(view, scope);

        assertThat(report.scope()).isEqualTo(dev.materializer.core.PassScope.KEYS);
        assertThat(report.scopeNote()).isEqualTo("2 keys of _id");
        assertThat(report.rowsWritten()).isEqualTo(1);
        assertThat(report.rowsRemoved()).isEqualTo(1);
        Map<Object, Object> scoped = fixture.readField(view, "amount");
        assertThat(runner.run(view).outcome()).as("a whole pass finds nothing left to do").isEqualTo(PassOutcome.UNCHANGED);
        assertThat(scoped).hasSize(2499).containsEntry(7, 5).doesNotContainKey(9);
    }

    @Test
    void aKeyScopedPassWhoseResultLeavesItsKeysRunsWholeAndSaysWhy(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 20, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        fixture.setAmount(3, 4);
        fixture.setAmount(4, 4);
        // A wrong restriction: it lets row 4 through but names only row 3
        KeyScope scope = new KeyScope(List.of(BsonDocument.parse("{$match: {_id: {$in: [3, 4]}}}"),
                BsonDocument.parse(ViewFixture.AMOUNTS[0])), List.of(new BsonInt32(3)), "1 key of _id");

        PassReport report = runner.run(view, scope);

        assertThat(report.scope()).isEqualTo(dev.materializer.core.PassScope.FULL);
        assertThat(report.scopeNote()).contains("row 4");
        assertThat(report.rowsWritten()).isEqualTo(2);
        assertThat(fixture.readField(view, "amount")).hasSize(20).containsEntry(3, 4).containsEntry(4, 4);
    }

    @Test
    void aKeyScopedPassThatWouldGrowTheViewOverMaxRowsErrorsAndWritesNothingReadersSee(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder().instanceId("test").maxRows(2).build());
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        fixture.order(3, "acme", "east", 3);
        KeyScope east = new KeyScope(List.of(BsonDocument.parse("{$match: {shop: 'east'}}"),
                BsonDocument.parse(ViewFixture.REVENUE_BY_SHOP[0])), List.of(new BsonString("east")), "1 key of shop");

        PassReport report = runner.run(view, east);

        assertThat(report.outcome()).as("as a whole pass finds").isEqualTo(PassOutcome.ERRORED);
        assertThat(report.error()).isEqualTo("the result of view revenue has more than 2 rows (maxRows)");
        assertThat(report.scope()).isEqualTo(dev.materializer.core.PassScope.KEYS);
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10), entry("south", 7));
        assertThat(runner.run(view).error()).isEqualTo(report.error());
    }

    @Test
    void anUnchangedResultWritesNothingAndConfirmsTheFence(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 2500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
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
    void aRemovedRowIsClosedSoReadersOfThePreviousGenerationStillSeeIt(TestMongo mongo) {
        ViewFixture fixture = ViewFixture.withGrace(mongo, Duration.ofHours(1));
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        Generation first = fixture.status(view).generation();

        fixture.source().deleteOne(Filters.eq("_id", 2));
        PassReport report = runner.run(view);
        runner.sweep(view);

        assertThat(report.rowsRemoved()).isEqualTo(1);
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10));
        assertThat(fixture.readField(view, first, "total")).containsExactly(entry("north", 10), entry("south", 7));
    }

    @Test
    void aPassThatStartedBeforeAnotherPassWroteTheViewCannotFlipOverIt(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 3, 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        ViewStatus stale = fixture.status(view);
        // Another pass moved the version without moving the generation, as a confirmation does
        fixture.flip().confirm(view, stale.generation(), stale.version());
        fixture.setAmount(1, 99);

        assertThatSuperseded(() -> fixture.writer(false).write(view, stale, fixture.serverNow(), fixture.generations("acme")));

        ViewStatus now = fixture.status(view);
        assertThat(now.generation()).as("nothing flipped").isEqualTo(stale.generation());
        assertThat(now.version()).isEqualTo(stale.version() + 1);
        assertThat(now.lease()).isNull();
        assertThat(fixture.readField(view, "total").values()).containsOnly(10);
    }

    @Test
    void aFlipFromAGenerationThatChangedMeanwhileGivesWay(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 1500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        ViewStatus startedFrom = fixture.status(view);
        fixture.setAmount(1, 11);
        runner.run(view);
        Generation newer = fixture.status(view).generation();

        fixture.source().updateMany(new BsonDocument(), Updates.set("amount", 12));
        assertThatSuperseded(() -> fixture.writer(false).write(view, startedFrom, fixture.serverNow(), fixture.generations("acme")));

        ViewStatus status = fixture.status(view);
        assertThat(status.generation()).isEqualTo(newer);
        assertThat(status.lease()).isNull();
        assertThat(fixture.readField(view, "amount").get(1)).isEqualTo(11);
    }

    @Test
    void aConfirmationFromAWriteVersionAnotherPassMovedFails(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 3, 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        fixture.groupsRunner().run(view);
        ViewStatus status = fixture.status(view);

        assertThat(fixture.flip().confirm(view, status.generation(), status.version())).isTrue();
        assertThat(fixture.flip().confirm(view, status.generation(), status.version()))
            .as("the second pass started from the same version").isFalse();
    }

    @Test
    void thePreviousGenerationStaysWholeWithinItsGraceSoItsReadersCanFinish(TestMongo mongo) {
        ViewFixture fixture = ViewFixture.withGrace(mongo, Duration.ofHours(1));
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        fixture.setAmount(1, 11);
        runner.run(view);
        Generation second = fixture.status(view).generation();

        fixture.setAmount(2, 8);
        runner.run(view);
        runner.sweep(view);

        assertThat(fixture.readField(view, second, "total")).containsExactly(entry("north", 11), entry("south", 7));
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 11), entry("south", 8));
    }

    @Test
    void everyGenerationSupersededWithinTheGraceStaysWholeHoweverManyFlipsFollow(TestMongo mongo) {
        ViewFixture fixture = ViewFixture.withGrace(mongo, Duration.ofHours(1));
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        // A reader takes this generation; three flips follow within a second
        Generation held = fixture.status(view).generation();
        fixture.setAmount(1, 11);
        runner.run(view);
        fixture.setAmount(2, 8);
        runner.run(view);
        fixture.source().deleteOne(Filters.eq("_id", 1));
        runner.run(view);

        runner.sweep(view);

        assertThat(fixture.readField(view, held, "total")).as("the reader's generation, inside its grace")
            .containsExactly(entry("north", 10), entry("south", 7));
        assertThat(fixture.readField(view, "total")).containsExactly(entry("south", 8));
        assertThat(fixture.status(view).earlier()).as("the generations before the previous one, with their flips")
            .extracting(ViewStatus.Previous::generation).contains(held);
    }

    @Test
    void supersededVersionsAreSweptOnceTheGraceHasPassed(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo,
                MaterializerOptions.builder().instanceId("test").generationGrace(Duration.ZERO).build());
        ViewDefinition view = fixture.revenueOfTwoShops();
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        fixture.setAmount(1, 11);
        runner.run(view);
        assertThat(fixture.allRows("acme")).hasSize(3);

        runner.sweep(view);

        assertThat(fixture.allRows("acme")).hasSize(2)
            .allSatisfy(row -> assertThat(row.getInt64(ViewFilter.TO_FIELD).getValue()).isEqualTo(ViewFilter.OPEN));
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 11), entry("south", 7));
    }

    @Test
    void aLiveLeaseOfAnotherPassMakesThePassGiveWayAndNothingFlips(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        Generation current = fixture.status(view).generation();
        fixture.lease(view, "other-instance/pass", FAR_AHEAD);

        fixture.setAmount(1, 11);
        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.SUPERSEDED);
        assertThat(report.error()).isEqualTo("a pass of another instance holds the view");
        assertThat(fixture.status(view).generation()).isEqualTo(current);
        assertThat(fixture.status(view).lease().owner()).isEqualTo("other-instance/pass");
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10));
    }

    @Test
    void anAttemptThatDidNotFlipIsUndoneByTheNextBeforeItWrites(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 20, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        ViewStatus before = fixture.status(view);
        // An attempt that died after writing: a version of row 3 added, rows 3 and 5 closed, no flip
        long died = fixture.leases().take(view, "dead-instance/pass", before.generation(), before.version(), fixture.serverTime());
        TargetRows rows = fixture.rows();
        fixture.target().insertOne(rows.version(new ResultRow(new BsonInt32(3), new BsonDocument("amount", new BsonInt32(9)),
                "h"), "acme", new ObjectId(), died));
        for (int closed : List.of(3, 5)) {
            fixture.target().updateOne(Filters.and(Filters.eq(ViewFilter.ROW_FIELD, closed),
                    Filters.eq(ViewFilter.TO_FIELD, ViewFilter.OPEN), Filters.lt(ViewFilter.FROM_FIELD, died)),
                    Updates.set(ViewFilter.TO_FIELD, died));
        }
        fixture.lease(view, "dead-instance/pass", LONG_AGO);
        assertThat(fixture.readField(view, "amount").values()).as("readers never see it").hasSize(20).containsOnly(1);

        fixture.setAmount(7, 3);
        PassReport report = runner.run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(report.rowsWritten()).isEqualTo(1);
        Map<Object, Object> amounts = fixture.readField(view, "amount");
        assertThat(amounts).hasSize(20).containsEntry(7, 3).containsEntry(3, 1).containsEntry(5, 1);
        long current = fixture.status(view).generation().number();
        assertThat(current).isGreaterThan(died);
        assertThat(fixture.target().countDocuments(Filters.eq(ViewFilter.FROM_FIELD, died)))
            .as("the dead attempt's version is gone").isZero();
        assertThat(fixture.target().countDocuments(Filters.eq(ViewFilter.TO_FIELD, died)))
            .as("what it closed is open again").isZero();
    }

    @Test
    void theVersionsOfALiveAttemptSurviveTheSweep(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder().instanceId("test")
            .generationGrace(Duration.ZERO).build());
        fixture.orders("acme", 10, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        ViewStatus start = fixture.status(view);
        // Another pass holds the lease at the next number and wrote a version
        long theirs = fixture.leases().take(view, "theirs", start.generation(), start.version(), fixture.serverTime());
        BsonDocument version = fixture.rows().version(new ResultRow(new BsonInt32(3),
                new BsonDocument("amount", new BsonInt32(9)), "h"), "acme", new ObjectId(), theirs);
        fixture.target().insertOne(version);

        runner.sweep(view);

        assertThat(fixture.target().countDocuments(Filters.eq("_id", version.get("_id")))).isEqualTo(1);
        assertThat(fixture.readField(view, "amount").values()).containsOnly(1);
    }

    @Test
    void aTargetIdThatIgnoresTheAttemptErrorsTheViewBeforeItWrites(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder()
            .instanceId("test")
            .targetId((rowId, partition, generation) -> new BsonDocument("p", new BsonString(partition)).append("id", rowId))
            .build());
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);

        PassReport report = fixture.groupsRunner().run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.ERRORED);
        assertThat(report.error()).isNotBlank();
        assertThat(fixture.target().countDocuments()).isZero();
        assertThat(fixture.status(view).lease()).isNull();
    }

    @Test
    void readersAlwaysSeeExactlyOneWholeGenerationWhileALargeOneIsWritten(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder()
            .instanceId("test")
            .generationGrace(Duration.ofHours(1))
            .build());
        int size = 3500;
        fixture.orders("acme", size, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        // Every third row changes, one in seven goes: a mix of versions added, closed and kept
        fixture.source().updateMany(Filters.mod("_id", 3, 0), Updates.set("amount", 2));
        fixture.source().deleteMany(Filters.mod("_id", 7, 0));
        Map<Object, Object> before = fixture.readField(view, "amount");
        Map<Object, Object> after = new HashMap<>();
        for (int i = 0; i < size; i++) {
            if (i % 7 != 0) {
                after.put(i, i % 3 == 0 ? 2 : 1);
            }
        }

        CompletableFuture<PassReport> pass = CompletableFuture.supplyAsync(() -> runner.run(view));
        int reads = 0;
        int readsOfTheNew = 0;
        do {
            Map<Object, Object> seen = fixture.readField(view, "amount");
            assertThat(seen).as("one read sees one whole generation").satisfiesAnyOf(
                    rows -> assertThat(rows).isEqualTo(before), rows -> assertThat(rows).isEqualTo(after));
            readsOfTheNew += seen.equals(after) ? 1 : 0;
            reads++;
        }
        while (!pass.isDone());

        assertThat(pass.get(1, TimeUnit.MINUTES).outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(reads).isPositive();
        assertThat(fixture.readField(view, "amount")).isEqualTo(after);
    }

    @Test
    void aPassWhoseLeaseIsTakenOverGivesWayAtItsNextRenewalAndNothingFlips(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.orders("acme", 3500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        ViewRunner runner = fixture.groupsRunner();
        runner.run(view);
        Generation current = fixture.status(view).generation();
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
    void aGroupLandedAfterThePassLostItsLeaseIsUndoneBeforeThatPassEnds(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder().instanceId("test")
            .generationGrace(Duration.ofHours(1)).build());
        fixture.orders("acme", 1500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        fixture.groupsRunner().run(view);
        ViewStatus start = fixture.status(view);
        fixture.source().updateMany(new BsonDocument(), Updates.set("amount", 2));
        // The late pass stops before its second group, and stays stopped past its lease
        java.util.concurrent.atomic.AtomicLong landed = new java.util.concurrent.atomic.AtomicLong(-1);
        WriterGate gate = new WriterGate(2, attempt -> landed.set(fixture.target().countDocuments(
                Filters.or(Filters.eq(ViewFilter.FROM_FIELD, attempt), Filters.eq(ViewFilter.TO_FIELD, attempt)))));
        CompletableFuture<WriteOutcome> late = CompletableFuture.supplyAsync(() -> write(fixture, gate, view, start));
        gate.awaitHeld();
        fixture.expireLease(view);
        fixture.source().updateOne(Filters.eq("_id", 7), Updates.set("amount", 3));
        assertThat(fixture.groupsRunner().run(view).outcome()).as("the pass that took the view over")
            .isEqualTo(PassOutcome.CHANGED);
        Map<Object, Object> written = fixture.readField(view, "amount");

        gate.release();
        Throwable failure = late.handle((outcome, error) -> error).get(1, TimeUnit.MINUTES);

        assertThat(failure).hasCauseInstanceOf(PassSupersededException.class);
        // Without transactions the late group lands (this writer's groups are fenced by the lease alone): its 500
        // new versions, while its 500 closes touch nothing, as the pass that took over closed those rows already
        assertThat(landed.get()).as("versions of the late pass when it knew it had lost the view").isEqualTo(500);
        assertThat(written).hasSize(1500).containsEntry(7, 3).containsEntry(8, 2);
        assertThat(differing(fixture.readField(view, "amount"), written)).as("rows readers see otherwise once the late pass ended")
            .isEmpty();
        assertThat(fixture.target().countDocuments(Filters.eq(ViewFilter.FROM_FIELD, start.attempts() + 1)))
            .as("no version of the attempt that lost its lease").isZero();
        assertThat(fixture.target().countDocuments(Filters.eq(ViewFilter.TO_FIELD, start.attempts() + 1))).isZero();
    }

    @Test
    void aLateRemovalOfLeftoversNeverRemovesTheVersionsOfTheAttemptThatFollowed(TestMongo mongo) throws Exception {
        ViewFixture fixture = new ViewFixture(mongo, MaterializerOptions.builder().instanceId("test")
            .generationGrace(Duration.ofHours(1)).build());
        fixture.orders("acme", 1500, 1);
        ViewDefinition view = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        fixture.groupsRunner().run(view);
        // An attempt that died leaves a number above the generation, so the next removes leftovers
        ViewStatus before = fixture.status(view);
        fixture.leases().take(view, "dead-instance/pass", before.generation(), before.version(), fixture.serverTime());
        fixture.expireLease(view);
        ViewStatus start = fixture.status(view);
        fixture.source().updateMany(new BsonDocument(), Updates.set("amount", 2));
        // The late pass stops once it holds the lease, before it removes those leftovers
        WriterGate gate = new WriterGate(0);
        CompletableFuture<WriteOutcome> late = CompletableFuture.supplyAsync(() -> write(fixture, gate, view, start));
        gate.awaitHeld();
        fixture.expireLease(view);
        fixture.source().updateOne(Filters.eq("_id", 7), Updates.set("amount", 3));
        assertThat(fixture.groupsRunner().run(view).outcome()).isEqualTo(PassOutcome.CHANGED);
        Map<Object, Object> written = fixture.readField(view, "amount");

        gate.release();
        late.handle((outcome, error) -> error).get(1, TimeUnit.MINUTES);

        assertThat(written).hasSize(1500).containsEntry(7, 3).containsEntry(8, 2);
        assertThat(differing(fixture.readField(view, "amount"), written)).as("rows readers see otherwise").isEmpty();
    }

    /** The row ids whose value differs between two reads (at most ten), so a failure stays readable. */
    private static List<Object> differing(Map<Object, Object> seen, Map<Object, Object> expected) {
        java.util.Set<Object> ids = new java.util.TreeSet<>(seen.keySet());
        ids.addAll(expected.keySet());
        return ids.stream().filter(id -> !java.util.Objects.equals(seen.get(id), expected.get(id))).limit(10).toList();
    }

    private static WriteOutcome write(ViewFixture fixture, WriterGate gate, ViewDefinition view, ViewStatus start) {
        try {
            return fixture.writer(false, gate).write(view, start, fixture.serverNow(), fixture.generations("acme"));
        }
        catch (ViewRunException | PassSupersededException ex) {
            throw new java.util.concurrent.CompletionException(ex);
        }
    }

    @Test
    void aViewOfTheFormatBeforeVersionsIsRebuiltInVersionsAtItsFirstPass(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.revenueOfTwoShops();
        fixture.legacyView(view, new ObjectId(), Map.of("north", 10, "south", 6, "gone", 1));
        assertThat(fixture.readField(view, "total")).as("readers of the old format")
            .containsExactly(entry("gone", 1), entry("north", 10), entry("south", 6));

        PassReport report = fixture.groupsRunner().run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(report.rowsWritten()).as("rebuilt whole").isEqualTo(2);
        assertThat(fixture.status(view).generation().isLegacy()).isFalse();
        assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 10), entry("south", 7));
        assertThat(fixture.allRows("acme")).as("the old rows are gone").hasSize(2)
            .allSatisfy(row -> assertThat(row).doesNotContainKey(ViewFilter.GENERATION_FIELD));
    }

    @Test
    void aLeaseIsTakenOnlyWhenNoLiveLeaseHoldsTheViewAndTheViewIsWhereThePassStarted(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewLeases leases = fixture.leases();

        assertThat(leases.take(view, "first", null, 0, fixture.serverTime())).as("the first attempt").isEqualTo(1);
        assertThat(leases.take(view, "second", null, 0, fixture.serverTime())).isZero();
        fixture.lease(view, "first", LONG_AGO);
        assertThat(leases.take(view, "second", Generation.of(1), 0, fixture.serverTime())).as("not at that generation").isZero();
        assertThat(leases.take(view, "second", null, 3, fixture.serverTime())).as("not at that version").isZero();
        assertThat(leases.take(view, "second", null, 0, fixture.serverTime())).as("after the first lease ended").isEqualTo(2);
        assertThat(fixture.status(view).lease().owner()).isEqualTo("second");
        assertThat(fixture.status(view).attempts()).isEqualTo(2);
        assertThat(fixture.status(view).lease().until()).isAfter(Instant.now().minusSeconds(3600));
    }

    @Test
    void aLeaseIsRenewedOnlyByItsOwnerWhileItIsLive(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewLeases leases = fixture.leases();
        leases.take(view, "mine", null, 0, fixture.serverTime());

        assertThat(leases.renew(view, "someone-else", fixture.serverTime())).isFalse();
        assertThat(leases.renew(view, "mine", fixture.serverTime())).isTrue();
        fixture.lease(view, "mine", LONG_AGO);
        assertThat(leases.renew(view, "mine", fixture.serverTime())).as("after it ended").isFalse();
    }

    @Test
    void aLeaseIsReleasedOnlyByItsOwner(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewLeases leases = fixture.leases();
        leases.take(view, "mine", null, 0, fixture.serverTime());

        leases.release(view, "someone-else");
        assertThat(fixture.status(view).lease()).isNotNull();
        leases.release(view, "mine");
        assertThat(fixture.status(view).lease()).isNull();
    }

    @Test
    void theFlipNeedsTheLiveLeaseOfThePass(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        long generation = fixture.leases().take(view, "mine", null, 0, fixture.serverTime());
        fixture.lease(view, "mine", LONG_AGO);
        assertThat(fixture.flip().flip(view, ViewStatus.NONE, fixture.serverNow(), generation, "mine")).as("with its lease ended").isFalse();

        fixture.lease(view, "theirs", FAR_AHEAD);
        assertThat(fixture.flip().flip(view, ViewStatus.NONE, fixture.serverNow(), generation, "mine")).as("with another's lease").isFalse();

        fixture.lease(view, "mine", FAR_AHEAD);
        assertThat(fixture.flip().flip(view, ViewStatus.NONE, fixture.serverNow(), generation, "mine")).isTrue();
        assertThat(fixture.status(view).generation()).isEqualTo(Generation.of(generation));
        assertThat(fixture.status(view).lease()).isNull();
        assertThat(fixture.status(view).previous().generation()).isNull();
    }

    private static void assertThatSuperseded(ThrowingWrite write) throws Exception {
        try {
            write.run();
        }
        catch (PassSupersededException expected) {
            assertThat(expected.getMessage()).containsAnyOf("generation", "wrote it since");
            return;
        }
        throw new AssertionError("the pass did not give way");
    }

    @FunctionalInterface
    private interface ThrowingWrite {

        WriteOutcome run() throws Exception;
    }
}
