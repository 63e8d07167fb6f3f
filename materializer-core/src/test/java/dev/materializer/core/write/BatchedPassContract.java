package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.testing.TestMongo;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Key-scoped passes of several partitions' views of one definition run as one batch
 * ({@link ViewRunner#runBatch}): each view ends as its own pass would — its flip its own
 * compare-and-set, so one that was written meanwhile gives way alone while the others flip — each
 * reader sees one whole generation, and what the batch cannot handle exactly is handed back untouched.
 * The batches here write in groups under leases (no transactions), which every server runs.
 */
abstract class BatchedPassContract {

    private static final String[] PARTITIONS = { "acme", "globex", "initech" };

    @Test
    void aBatchRecomputesEachViewsKeysAndEveryReaderSeesTheNewGenerationWhole(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        ViewRunner runner = fixture.groupsRunner();
        Map<ViewKey, Generation> before = generations(fixture, views);
        addNorthOrders(fixture);

        BatchRun run = runner.runBatch(northOf(fixture, views));

        assertThat(run.handedBack()).isEmpty();
        assertThat(run.reports().values()).extracting(PassReport::outcome).containsOnly(PassOutcome.CHANGED);
        assertThat(run.reports().values()).extracting(PassReport::scope).containsOnly(PassScope.KEYS);
        for (ViewDefinition view : views) {
            assertThat(fixture.readField(view, "total")).as(view.partition()).containsExactly(entry("north", 15), entry("south", 7));
            // A reader that still holds the generation before reads it whole, as it was
            assertThat(fixture.readField(view, before.get(view.key()), "total")).containsExactly(entry("north", 10),
                    entry("south", 7));
            assertThat(fixture.status(view).generation().number()).isGreaterThan(before.get(view.key()).number());
        }
    }

    @Test
    void aViewWrittenByAnotherPassMeanwhileGivesWayAloneWhileTheOthersFlip(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        addNorthOrders(fixture);
        ViewDefinition globex = views.get(1);
        ViewRunner otherInstance = fixture.groupsRunner();
        // Another instance's pass of globex lands between the batch's status read and its writes
        ViewRunner runner = new ViewRunner(fixture.database, null, fixture.settings,
                new ScopeGuard(fixture.options.partitionField()), new RowHasher(), () -> otherInstance.run(globex));

        BatchRun run = runner.runBatch(northOf(fixture, views));

        assertThat(run.handedBack()).isEmpty();
        assertThat(run.reports().get(globex.key()).outcome()).isEqualTo(PassOutcome.SUPERSEDED);
        assertThat(run.reports().get(views.get(0).key()).outcome()).isEqualTo(PassOutcome.CHANGED);
        assertThat(run.reports().get(views.get(2).key()).outcome()).isEqualTo(PassOutcome.CHANGED);
        for (ViewDefinition view : views) {
            assertThat(fixture.readField(view, "total")).as(view.partition()).containsExactly(entry("north", 15), entry("south", 7));
            assertThat(fixture.status(view).lease()).as("no lease left behind").isNull();
        }
    }

    @Test
    void aViewHeldByALiveLeaseAndAResultOutsideItsKeysAreHandedBackUntouched(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        addNorthOrders(fixture);
        ViewDefinition acme = views.get(0);
        ViewDefinition initech = views.get(2);
        fixture.views().updateOne(new BsonDocument("_id", new BsonString("revenue-globex")),
                new BsonDocument("$set", new BsonDocument(fixture.options.statusField() + ".lease",
                        new BsonDocument("owner", new BsonString("another/instance")).append("until",
                                new BsonDateTime(System.currentTimeMillis() + 3_600_000)))));
        List<BatchMember> members = new ArrayList<>(northOf(fixture, views));
        // initech's restriction is wrong: it reads every shop, but says it recomputes north only
        members.set(2, new BatchMember(initech, new KeyScope(List.of(BsonDocument.parse(ViewFixture.REVENUE_BY_SHOP[0])),
                List.of(new BsonString("north")), "1 key of shop"), null));
        Generation initechBefore = fixture.status(initech).generation();

        BatchRun run = fixture.groupsRunner().runBatch(members);

        assertThat(run.handedBack()).extracting(member -> member.view().partition()).containsExactlyInAnyOrder("globex",
                "initech");
        assertThat(run.reports()).containsOnlyKeys(acme.key());
        assertThat(fixture.status(initech).generation()).isEqualTo(initechBefore);
        assertThat(fixture.readField(initech, "total")).containsExactly(entry("north", 10), entry("south", 7));
        assertThat(fixture.readField(acme, "total")).containsExactly(entry("north", 15), entry("south", 7));
    }

    @Test
    void aBatchOfUnchangedViewsConfirmsEachFence(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        Map<ViewKey, Long> versions = new java.util.HashMap<>();
        views.forEach(view -> versions.put(view.key(), fixture.status(view).version()));

        BatchRun run = fixture.groupsRunner().runBatch(northOf(fixture, views));

        assertThat(run.reports().values()).extracting(PassReport::outcome).containsOnly(PassOutcome.UNCHANGED);
        for (ViewDefinition view : views) {
            assertThat(fixture.status(view).version()).as("confirmed").isEqualTo(versions.get(view.key()) + 1);
        }
    }

    @Test
    void aBatchOfWholePassesRecomputesEachViewAndSaysItRanWhole(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        addNorthOrders(fixture);
        List<BatchMember> whole = new ArrayList<>();
        views.forEach(view -> whole.add(new BatchMember(view, null, null)));

        BatchRun run = fixture.groupsRunner().runBatch(whole);

        assertThat(run.handedBack()).isEmpty();
        assertThat(run.reports().values()).extracting(PassReport::outcome).containsOnly(PassOutcome.CHANGED);
        assertThat(run.reports().values()).extracting(PassReport::scope).containsOnly(PassScope.FULL);
        for (ViewDefinition view : views) {
            assertThat(fixture.readField(view, "total")).as(view.partition()).containsExactly(entry("north", 15), entry("south", 7));
        }
    }

    @Test
    void wholePassesOfViewsLargerThanAGroupAreHandedBackUntouched(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = new ArrayList<>();
        ViewRunner runner = fixture.groupsRunner();
        for (String partition : List.of("acme", "globex")) {
            for (int i = 0; i < 600; i++) {
                fixture.order(partition + "-" + i, partition, "shop-" + i, 1);
            }
            ViewDefinition view = sharedView(fixture, "amounts-" + partition, partition, ViewFixture.AMOUNTS);
            runner.run(view);
            views.add(view);
        }
        List<BatchMember> whole = new ArrayList<>();
        views.forEach(view -> whole.add(new BatchMember(view, null, null)));

        BatchRun run = runner.runBatch(whole);

        assertThat(run.reports()).as("1,200 rows: each view runs alone").isEmpty();
        assertThat(run.handedBack()).hasSize(2);
    }

    @Test
    void aBatchIsOfOneDefinitionAndOneTarget(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        ViewDefinition other = fixture.view("amounts", "acme", ViewFixture.AMOUNTS);
        List<BatchMember> members = new ArrayList<>(northOf(fixture, views));
        members.add(new BatchMember(other, members.get(0).scope(), null));

        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
            .isThrownBy(() -> fixture.groupsRunner().runBatch(members))
            .withMessageContaining("one definition, one target and one kind of pass");
    }

    /** Three tenants with one view each of the same definition, run once: north 10, south 7 in each. */
    static List<ViewDefinition> threeTenants(ViewFixture fixture) {
        List<ViewDefinition> views = new ArrayList<>();
        int id = 1;
        for (String partition : PARTITIONS) {
            fixture.order(id++, partition, "north", 10);
            fixture.order(id++, partition, "south", 7);
            views.add(sharedView(fixture, "revenue-" + partition, partition));
        }
        ViewRunner runner = fixture.groupsRunner();
        views.forEach(runner::run);
        return views;
    }

    static void addNorthOrders(ViewFixture fixture) {
        int id = 100;
        for (String partition : PARTITIONS) {
            fixture.order(id++, partition, "north", 5);
        }
    }

    /** A view document of the shared definition: views of one definition share its fingerprint. */
    static ViewDefinition sharedView(ViewFixture fixture, String id, String partition) {
        return sharedView(fixture, id, partition, ViewFixture.REVENUE_BY_SHOP);
    }

    /** A view document of a shared definition of the given stages. */
    static ViewDefinition sharedView(ViewFixture fixture, String id, String partition, String[] stages) {
        List<BsonDocument> pipeline = Arrays.stream(stages).map(BsonDocument::parse).toList();
        fixture.views().insertOne(new BsonDocument("_id", new BsonString(id))
            .append(fixture.options.partitionField(), new BsonString(partition))
            .append("collections", new BsonArray(List.<BsonValue>of(new BsonString(ViewFixture.SOURCE))))
            .append("pipeline", new BsonArray(pipeline))
            .append("targetCollection", new BsonString(ViewFixture.TARGET)));
        return new ViewDefinition(new BsonString(id), partition, List.of(ViewFixture.SOURCE), pipeline,
                ViewFixture.TARGET, Map.of(), "fingerprint-" + String.join(",", stages));
    }

    /** Each view's pass restricted to the shop north, as the planner restricts a group-by key. */
    static List<BatchMember> northOf(ViewFixture fixture, List<ViewDefinition> views) {
        List<BatchMember> members = new ArrayList<>();
        for (ViewDefinition view : views) {
            members.add(new BatchMember(view, new KeyScope(List.of(BsonDocument.parse("{$match: {shop: 'north'}}"),
                    BsonDocument.parse(ViewFixture.REVENUE_BY_SHOP[0])), List.of(new BsonString("north")), "1 key of shop"),
                    null));
        }
        return members;
    }

    private static Map<ViewKey, Generation> generations(ViewFixture fixture, List<ViewDefinition> views) {
        Map<ViewKey, Generation> generations = new java.util.HashMap<>();
        views.forEach(view -> generations.put(view.key(), fixture.status(view).generation()));
        return generations;
    }
}
