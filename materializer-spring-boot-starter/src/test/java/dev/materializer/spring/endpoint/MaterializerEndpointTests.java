package dev.materializer.spring.endpoint;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.view.ViewKey;
import dev.materializer.spring.endpoint.MaterializerEndpoint.MaterializerDescriptor;
import dev.materializer.spring.endpoint.MaterializerEndpoint.ReconcileDescriptor;
import dev.materializer.spring.endpoint.MaterializerEndpoint.RefreshDescriptor;
import dev.materializer.spring.endpoint.MaterializerEndpoint.VerifyDescriptor;
import dev.materializer.spring.endpoint.MaterializerEndpoint.VerifyReportDescriptor;
import dev.materializer.spring.endpoint.MaterializerEndpoint.ViewDescriptor;
import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What the endpoint's operations return, from a fixed snapshot. */
class MaterializerEndpointTests {

    private final RecordingMaterializer engine = new RecordingMaterializer();

    private final MaterializerEndpoint endpoint = new MaterializerEndpoint(this.engine, Duration.ofMillis(50));

    MaterializerEndpointTests() {
        this.engine.setSnapshot(Snapshots.running());
    }

    @Test
    void theWholeStateShowsTheEngineAndEveryView() {
        MaterializerDescriptor state = this.endpoint.materializer();
        assertThat(state.getState()).isEqualTo("running");
        assertThat(state.getReason()).isNull();
        assertThat(state.getOpenStreams()).isEqualTo(3);
        assertThat(state.getPassesInFlight()).isEqualTo(2);
        assertThat(state.getLagSeconds()).isEqualTo(1.5);
        assertThat(state.isTransactions()).isTrue();
        assertThat(state.getViewCounts()).containsEntry("ok", 1L).containsEntry("errored", 1L)
            .containsEntry("cycle", 1L).containsEntry("pending", 1L);
        assertThat(state.getViews()).extracting(ViewDescriptor::getId).containsExactly("totals", "broken", "a", "new");
    }

    @Test
    void theWholeStateShowsHowFarTheReconcilersRoundIs() {
        ReconcileDescriptor reconcile = this.endpoint.materializer().getReconcile();
        assertThat(reconcile.getRound()).isEqualTo(4);
        assertThat(reconcile.getDone()).isEqualTo(2);
        assertThat(reconcile.getTotal()).isEqualTo(3);
        assertThat(reconcile.getSkipped()).isEqualTo(1);
        assertThat(reconcile.getNextRoundAt()).as("a round runs now").isNull();
    }

    @Test
    void betweenRoundsTheReconcilerShowsWhenTheNextStarts() {
        this.engine.setSnapshot(Snapshots.reconcileBetweenRounds());
        ReconcileDescriptor reconcile = this.endpoint.materializer().getReconcile();
        assertThat(reconcile.getRound()).isEqualTo(3);
        assertThat(reconcile.getNextRoundAt()).isEqualTo("2026-01-02T10:00:00Z");
    }

    @Test
    void beforeAnyRoundTheReconcilerIsAtRoundZero() {
        this.engine.setSnapshot(new dev.materializer.core.MaterializerSnapshot(dev.materializer.core.EngineState.NEW,
                null, 0, 0, null, false, java.util.List.of()));
        ReconcileDescriptor reconcile = this.endpoint.materializer().getReconcile();
        assertThat(reconcile.getRound()).isZero();
        assertThat(reconcile.getTotal()).isZero();
        assertThat(reconcile.getNextRoundAt()).isNull();
    }

    @Test
    void aViewShowsWhenItWasLastReconciledAndItsRowsOfDrift() {
        ViewDescriptor reconciled = this.endpoint.view("acme", "totals");
        assertThat(reconciled).isNotNull();
        assertThat(reconciled.getLastReconciled()).isEqualTo("2026-01-02T04:00:00Z");
        assertThat(reconciled.getDriftRows()).isEqualTo(3);
        ViewDescriptor never = this.endpoint.view("globex", "new");
        assertThat(never).isNotNull();
        assertThat(never.getLastReconciled()).isNull();
        assertThat(never.getDriftRows()).isZero();
    }

    @Test
    void oneViewShowsItsPartitionIdStateSourcesTargetGenerationAndLastRun() {
        ViewDescriptor view = this.endpoint.view("acme", "totals");
        assertThat(view).isNotNull();
        assertThat(view.getPartition()).isEqualTo("acme");
        assertThat(view.getId()).isEqualTo("totals");
        assertThat(view.getState()).isEqualTo("ok");
        assertThat(view.getSources()).containsExactly("orders");
        assertThat(view.getTarget()).isEqualTo("order_totals");
        assertThat(view.getGeneration()).isEqualTo("0a1b");
        assertThat(view.getLastRun()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(view.getLastError()).isNull();
        assertThat(view.getLastOutcome()).isEqualTo("changed");
        assertThat(view.getLastMode()).isEqualTo("generation");
    }

    @Test
    void anErroredViewShowsItsLastError() {
        ViewDescriptor view = this.endpoint.view("acme", "broken");
        assertThat(view).isNotNull();
        assertThat(view.getState()).isEqualTo("errored");
        assertThat(view.getLastError()).isEqualTo("maxRows exceeded: 100001 rows");
        assertThat(view.getLastOutcome()).isEqualTo("errored");
    }

    @Test
    void aViewNeverRunHasNoLastRunOutcomeOrMode() {
        ViewDescriptor view = this.endpoint.view("globex", "new");
        assertThat(view).isNotNull();
        assertThat(view.getLastRun()).isNull();
        assertThat(view.getLastOutcome()).isNull();
        assertThat(view.getLastMode()).isNull();
    }

    @Test
    void anUnknownViewIsNull() {
        assertThat(this.endpoint.view("acme", "nope")).isNull();
        assertThat(this.endpoint.view("globex", "totals")).as("the same id in another partition").isNull();
    }

    @Test
    void aRefreshThatEndsInTimeReturnsTheReportOfItsPass() {
        PassReport report = new PassReport(new ViewKey("acme", "totals"), WriteMode.TRANSACTION, PassOutcome.CHANGED, 7,
                2, Duration.ofMillis(42), null);
        this.engine.onRefresh("acme", "totals", CompletableFuture.completedFuture(report));

        RefreshDescriptor refresh = this.endpoint.refresh("acme", "totals");

        assertThat(refresh.getStatus()).isEqualTo("finished");
        assertThat(refresh.getPartition()).isEqualTo("acme");
        assertThat(refresh.getId()).isEqualTo("totals");
        assertThat(refresh.getMessage()).isNull();
        assertThat(refresh.getPass()).isNotNull();
        assertThat(refresh.getPass().getOutcome()).isEqualTo("changed");
        assertThat(refresh.getPass().getMode()).isEqualTo("transaction");
        assertThat(refresh.getPass().getRowsWritten()).isEqualTo(7);
        assertThat(refresh.getPass().getRowsRemoved()).isEqualTo(2);
        assertThat(refresh.getPass().getDurationMillis()).isEqualTo(42);
        assertThat(this.engine.calls()).containsExactly("refresh acme/totals");
    }

    @Test
    void aRefreshStillRunningAfterTheWaitSaysSo() {
        this.engine.onRefresh("acme", "totals", new CompletableFuture<>());
        RefreshDescriptor refresh = this.endpoint.refresh("acme", "totals");
        assertThat(refresh.getStatus()).isEqualTo("running");
        assertThat(refresh.getPass()).isNull();
        assertThat(refresh.getMessage()).contains("still runs after 50 ms");
    }

    @Test
    void aRefreshWhosePassFailedSaysWhy() {
        this.engine.onRefresh("acme", "totals", CompletableFuture.failedFuture(new IllegalStateException("engine stopped")));
        RefreshDescriptor refresh = this.endpoint.refresh("acme", "totals");
        assertThat(refresh.getStatus()).isEqualTo("failed");
        assertThat(refresh.getMessage()).isEqualTo("engine stopped");
    }

    @Test
    void aRefreshOfAnUnknownViewIsABadRequest() {
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> this.endpoint.refresh("acme", "nope"))
            .withMessage("No view 'nope' in partition 'acme' is known to this instance");
    }

    @Test
    void theRefreshActionIsTheRefresh() {
        this.engine.onRefresh("acme", "totals", CompletableFuture.completedFuture(new PassReport(new ViewKey("acme", "totals"),
                WriteMode.GENERATION, PassOutcome.UNCHANGED, 0, 0, Duration.ofMillis(3), null)));

        assertThat(this.endpoint.act("acme", "totals", "refresh")).isInstanceOfSatisfying(RefreshDescriptor.class,
                refresh -> assertThat(refresh.getStatus()).isEqualTo("finished"));
        assertThat(this.engine.calls()).containsExactly("refresh acme/totals");
    }

    @Test
    void theVerifyActionComparesTheViewAndWritesNothing() {
        this.engine.onVerify("acme", "totals", CompletableFuture.completedFuture(new VerifyReport(new ViewKey("acme", "totals"),
                12, 1, 2, 3, Duration.ofMillis(25), null)));

        OperationResponseBody answer = this.endpoint.act("acme", "totals", "verify");

        assertThat(answer).isInstanceOf(VerifyDescriptor.class);
        VerifyDescriptor verify = (VerifyDescriptor) answer;
        assertThat(verify.getStatus()).isEqualTo("finished");
        assertThat(verify.getPartition()).isEqualTo("acme");
        assertThat(verify.getId()).isEqualTo("totals");
        assertThat(verify.getMessage()).isNull();
        VerifyReportDescriptor report = verify.getReport();
        assertThat(report).isNotNull();
        assertThat(report.getResultRows()).isEqualTo(12);
        assertThat(report.getMissing()).isEqualTo(1);
        assertThat(report.getChanged()).isEqualTo(2);
        assertThat(report.getExtra()).isEqualTo(3);
        assertThat(report.getDifferences()).isEqualTo(6);
        assertThat(report.isInSync()).isFalse();
        assertThat(report.getDurationMillis()).isEqualTo(25);
        assertThat(report.getError()).isNull();
        assertThat(this.engine.calls()).as("no refresh").containsExactly("verify acme/totals");
    }

    @Test
    void aVerifyOfAViewInSyncSaysSo() {
        this.engine.onVerify("acme", "totals", CompletableFuture.completedFuture(new VerifyReport(new ViewKey("acme", "totals"),
                5, 0, 0, 0, Duration.ofMillis(4), null)));
        VerifyReportDescriptor report = this.endpoint.verify("acme", "totals").getReport();
        assertThat(report).isNotNull();
        assertThat(report.getDifferences()).isZero();
        assertThat(report.isInSync()).isTrue();
    }

    @Test
    void aVerifyWhosePipelineCannotRunFinishesWithTheViewsError() {
        this.engine.onVerify("acme", "broken", CompletableFuture.completedFuture(new VerifyReport(new ViewKey("acme", "broken"),
                0, 0, 0, 0, Duration.ofMillis(1), "maxRows exceeded: 100001 rows")));
        VerifyDescriptor verify = this.endpoint.verify("acme", "broken");
        assertThat(verify.getStatus()).isEqualTo("finished");
        assertThat(verify.getReport()).isNotNull();
        assertThat(verify.getReport().getError()).isEqualTo("maxRows exceeded: 100001 rows");
        assertThat(verify.getReport().isInSync()).isFalse();
    }

    @Test
    void aVerifyStillRunningAfterTheRefreshWaitSaysSo() {
        this.engine.onVerify("acme", "totals", new CompletableFuture<>());
        VerifyDescriptor verify = this.endpoint.verify("acme", "totals");
        assertThat(verify.getStatus()).isEqualTo("running");
        assertThat(verify.getReport()).isNull();
        assertThat(verify.getMessage()).contains("still runs after 50 ms").contains("writes nothing");
    }

    @Test
    void aVerifyThatFailedSaysWhy() {
        this.engine.onVerify("acme", "totals",
                CompletableFuture.failedFuture(new IllegalStateException("the materializer is not running (RETRYING)")));
        VerifyDescriptor verify = this.endpoint.verify("acme", "totals");
        assertThat(verify.getStatus()).isEqualTo("failed");
        assertThat(verify.getReport()).isNull();
        assertThat(verify.getMessage()).isEqualTo("the materializer is not running (RETRYING)");
    }

    @Test
    void aVerifyOfAnUnknownViewIsTheSameBadRequestAsARefresh() {
        String refresh = catchThrowableOfType(InvalidEndpointRequestException.class,
                () -> this.endpoint.refresh("acme", "nope")).getReason();
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.act("acme", "nope", "verify"))
            .withMessage("No view 'nope' in partition 'acme' is known to this instance")
            .satisfies(ex -> assertThat(ex.getReason()).isEqualTo(refresh));
    }

    @Test
    void anEngineThatThrowsForAnUnknownViewRatherThanFailingIsABadRequestToo() {
        this.engine.throwForUnknownViews();
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> this.endpoint.verify("acme", "nope"))
            .withMessage("No view 'nope' in partition 'acme' is known to this instance");
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> this.endpoint.refresh("acme", "nope"))
            .withMessage("No view 'nope' in partition 'acme' is known to this instance");
    }

    @Test
    void anUnknownActionIsABadRequestNamingTheAllowedOnes() {
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.act("acme", "totals", "delete"))
            .withMessage("Unknown action 'delete': the action is one of [refresh, verify]");
        assertThat(this.engine.calls()).as("nothing ran").isEmpty();
    }

    @Test
    void theEngineStatesAreWrittenInLowerCase() {
        this.engine.setSnapshot(Snapshots.of(dev.materializer.core.EngineState.RETRYING, "MongoDB unreachable"));
        MaterializerDescriptor state = this.endpoint.materializer();
        assertThat(state.getState()).isEqualTo("retrying");
        assertThat(state.getReason()).isEqualTo("MongoDB unreachable");
    }
}
