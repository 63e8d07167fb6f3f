package dev.materializer.core.write;

import java.util.List;

import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Batched passes on a real replica set (skipped without Docker): the contract in groups under
 * leases, and the batch written in one transaction where the deployment has transactions.
 */
@MongoTest(MongoKind.REPLICA_SET)
class BatchedPassReplicaSetTest extends BatchedPassContract {

    @Test
    void withTransactionsTheFlipsAndRowsOfABatchCommitTogether(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        addNorthOrders(fixture);

        BatchRun run = fixture.transactionalRunner().runBatch(northOf(fixture, views));

        assertThat(run.handedBack()).isEmpty();
        assertThat(run.reports().values()).extracting(PassReport::outcome).containsOnly(PassOutcome.CHANGED);
        assertThat(run.reports().values()).extracting(PassReport::mode).containsOnly(WriteMode.TRANSACTION);
        for (ViewDefinition view : views) {
            assertThat(fixture.readField(view, "total")).containsExactly(entry("north", 15), entry("south", 7));
        }
    }

    @Test
    void withTransactionsAViewWrittenMeanwhileHandsTheWholeBatchBackWithNothingWritten(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        List<ViewDefinition> views = threeTenants(fixture);
        addNorthOrders(fixture);
        ViewDefinition acme = views.get(0);
        ViewDefinition globex = views.get(1);
        Generation acmeBefore = fixture.status(acme).generation();
        ViewRunner otherInstance = fixture.groupsRunner();
        ViewRunner runner = new ViewRunner(fixture.database, mongo.client(), fixture.settings,
                new ScopeGuard(fixture.options.partitionField()), new RowHasher(), () -> otherInstance.run(globex));

        BatchRun run = runner.runBatch(northOf(fixture, views));

        // All or nothing: one flip that does not match aborts the transaction, and each view runs alone
        assertThat(run.reports()).isEmpty();
        assertThat(run.handedBack()).hasSize(3);
        assertThat(fixture.status(acme).generation()).isEqualTo(acmeBefore);
        assertThat(fixture.readField(acme, "total")).containsExactly(entry("north", 10), entry("south", 7));
        assertThat(fixture.readField(globex, "total")).containsExactly(entry("north", 15), entry("south", 7));
    }
}
