package dev.materializer.spring.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.entry;

/** What the endpoint's operations return, from a fixed snapshot. */
class MaterializerEndpointTests {

    private final RecordingMaterializer engine = new RecordingMaterializer();

    private final MaterializerEndpoint endpoint = new MaterializerEndpoint(this.engine, Duration.ofMillis(50));

    MaterializerEndpointTests() {
        this.engine.setSnapshot(Snapshots.running());
    }

    @Test
    void theWholeStateShowsTheEngineAndEveryView() {
        MaterializerDescriptor state = this.endpoint.materializer(null, null, null, null);
        assertThat(state.getState()).isEqualTo("running");
        assertThat(state.getReason()).isNull();
        assertThat(state.getOpenStreams()).isEqualTo(3);
        assertThat(state.getPassesInFlight()).isEqualTo(2);
        assertThat(state.getLagSeconds()).isEqualTo(1.5);
        assertThat(state.isTransactions()).isTrue();
        assertThat(state.getViewCounts()).containsExactly(entry("pending", 1), entry("ok", 1), entry("errored", 1),
                entry("cycle", 1), entry("target_shared", 0));
        assertThat(state.getViews()).as("by partition, then id").extracting(ViewDescriptor::getId)
            .containsExactly("broken", "totals", "a", "new");
        assertThat(state.getPage()).isZero();
        assertThat(state.getSize()).isEqualTo(MaterializerEndpoint.DEFAULT_PAGE_SIZE);
        assertThat(state.getTotal()).isEqualTo(4);
    }

    @Test
    void theSummaryReadsNoSnapshotAndCountsEveryStateEvenAtZero() {
        this.engine.setSnapshot(new MaterializerSnapshot(EngineState.RUNNING, null, 1, 0, null, false,
                List.of(Snapshots.running().views().get(0))));
        MaterializerDescriptor state = this.endpoint.materializer(null, null, null, null);
        assertThat(state.getViewCounts()).containsExactly(entry("pending", 0), entry("ok", 1), entry("errored", 0),
                entry("cycle", 0), entry("target_shared", 0));
        assertThat(this.engine.snapshotCalls()).as("only the page's views are read").isZero();
    }

    @Test
    void theViewsArePagedByPartitionThenId() {
        MaterializerDescriptor second = this.endpoint.materializer(null, null, 1, 3);
        assertThat(second.getPage()).isEqualTo(1);
        assertThat(second.getSize()).isEqualTo(3);
        assertThat(second.getTotal()).isEqualTo(4);
        assertThat(second.getViews()).extracting(ViewDescriptor::getId).containsExactly("new");
        MaterializerDescriptor past = this.endpoint.materializer(null, null, 5, 3);
        assertThat(past.getViews()).isEmpty();
        assertThat(past.getTotal()).isEqualTo(4);
        assertThat(past.getViewCounts()).as("the counts are of every view").containsEntry("ok", 1);
    }

    @Test
    void theViewsAreFilteredByPartitionAndByState() {
        MaterializerDescriptor acme = this.endpoint.materializer("acme", null, null, null);
        assertThat(acme.getViews()).extracting(ViewDescriptor::getId).containsExactly("broken", "totals");
        assertThat(acme.getTotal()).isEqualTo(2);
        MaterializerDescriptor errored = this.endpoint.materializer(null, "errored", null, null);
        assertThat(errored.getViews()).extracting(ViewDescriptor::getId).containsExactly("broken");
        MaterializerDescriptor none = this.endpoint.materializer("globex", "errored", null, null);
        assertThat(none.getViews()).isEmpty();
        assertThat(none.getTotal()).isZero();
    }

    @ParameterizedTest(name = "state={0} page={1} size={2}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            broken | -  | -    | Unknown state 'broken': the state is one of [pending, ok, errored, cycle, target_shared]
            -      | -1 | -    | The page is 0 or more, was -1
            -      | -  | 0    | The size is between 1 and 1000, was 0
            -      | -  | 1001 | The size is between 1 and 1000, was 1001
            """)
    void aStateThatIsNoneOrAPageOrSizeOutOfRangeIsABadRequest(@Nullable String state, @Nullable Integer page,
            @Nullable Integer size, String reason) {
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.materializer(null, state, page, size))
            .withMessage(reason);
    }

    @Test
    void theLargestPageIsAThousandViews() {
        assertThat(this.endpoint.materializer(null, null, 0, MaterializerEndpoint.MAX_PAGE_SIZE).getSize())
            .isEqualTo(1000);
    }

    @Test
    void anIdWithASlashIsReadWithTheIdInTheQueryAndActedOnWithTheIdInTheBody() {
        this.engine.setSnapshot(new MaterializerSnapshot(EngineState.RUNNING, null, 1, 0, null, false,
                List.of(new ViewSnapshot("acme", "acme/revenue", ViewState.OK, List.of("orders"), "revenue", null, null, null,
                        null, null))));
        ViewDescriptor view = this.endpoint.viewById("acme", "acme/revenue");
        assertThat(view).isNotNull();
        assertThat(view.getId()).isEqualTo("acme/revenue");
        assertThat(this.endpoint.viewById("acme", "acme")).isNull();
        this.engine.onRefresh("acme", "acme/revenue", CompletableFuture.completedFuture(new PassReport(
                new ViewKey("acme", "acme/revenue"), WriteMode.GENERATION, PassOutcome.UNCHANGED, 0, 0, Duration.ofMillis(3),
                null)));
        this.engine.onVerify("acme", "acme/revenue", CompletableFuture.completedFuture(
                new VerifyReport(new ViewKey("acme", "acme/revenue"), 1, 0, 0, 0, Duration.ofMillis(2), null)));

        assertThat(this.endpoint.actById("acme", "acme/revenue", null)).as("refresh when no action is given")
            .isInstanceOfSatisfying(RefreshDescriptor.class, refresh -> assertThat(refresh.getId()).isEqualTo("acme/revenue"));
        assertThat(this.endpoint.actById("acme", "acme/revenue", "verify")).isInstanceOf(VerifyDescriptor.class);
        assertThat(this.engine.calls()).containsExactly("refresh acme/acme/revenue", "verify acme/acme/revenue");
        assertThatExceptionOfType(UnknownViewException.class).isThrownBy(() -> this.endpoint.actById("acme", "nope", null));
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.actById("acme", "acme/revenue", "rebuild"))
            .withMessage("Unknown action 'rebuild': the action is one of [refresh, verify]");
    }

    @Test
    void theWholeStateShowsHowFarTheReconcilersRoundIs() {
        ReconcileDescriptor reconcile = this.endpoint.materializer(null, null, null, null).getReconcile();
        assertThat(reconcile.getRound()).isEqualTo(4);
        assertThat(reconcile.getDone()).isEqualTo(2);
        assertThat(reconcile.getTotal()).isEqualTo(3);
        assertThat(reconcile.getSkipped()).isEqualTo(1);
        assertThat(reconcile.getNextRoundAt()).as("a round runs now").isNull();
    }

    @Test
    void betweenRoundsTheReconcilerShowsWhenTheNextStarts() {
        this.engine.setSnapshot(Snapshots.reconcileBetweenRounds());
        ReconcileDescriptor reconcile = this.endpoint.materializer(null, null, null, null).getReconcile();
        assertThat(reconcile.getRound()).isEqualTo(3);
        assertThat(reconcile.getNextRoundAt()).isEqualTo("2026-01-02T10:00:00Z");
    }

    @Test
    void beforeAnyRoundTheReconcilerIsAtRoundZero() {
        this.engine.setSnapshot(new MaterializerSnapshot(EngineState.NEW, null, 0, 0, null, false, List.of()));
        ReconcileDescriptor reconcile = this.endpoint.materializer(null, null, null, null).getReconcile();
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
    void aRefreshOfAnUnknownViewSaysTheViewIsUnknown() {
        assertThatExceptionOfType(UnknownViewException.class).isThrownBy(() -> this.endpoint.refresh("acme", "nope"))
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
    void aVerifyOfAnUnknownViewIsTheSameUnknownViewAsARefresh() {
        String refresh = catchThrowableOfType(UnknownViewException.class,
                () -> this.endpoint.refresh("acme", "nope")).getReason();
        assertThatExceptionOfType(UnknownViewException.class)
            .isThrownBy(() -> this.endpoint.act("acme", "nope", "verify"))
            .withMessage("No view 'nope' in partition 'acme' is known to this instance")
            .satisfies(ex -> assertThat(ex.getReason()).isEqualTo(refresh));
    }

    @Test
    void anEngineThatThrowsForAnUnknownViewRatherThanFailingIsAnUnknownViewToo() {
        this.engine.throwForUnknownViews();
        assertThatExceptionOfType(UnknownViewException.class).isThrownBy(() -> this.endpoint.verify("acme", "nope"))
            .withMessage("No view 'nope' in partition 'acme' is known to this instance");
        assertThatExceptionOfType(UnknownViewException.class).isThrownBy(() -> this.endpoint.refresh("acme", "nope"))
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
        this.engine.setSnapshot(Snapshots.of(EngineState.RETRYING, "MongoDB unreachable"));
        MaterializerDescriptor state = this.endpoint.materializer(null, null, null, null);
        assertThat(state.getState()).isEqualTo("retrying");
        assertThat(state.getReason()).isEqualTo("MongoDB unreachable");
    }
}
