package dev.materializer.spring.endpoint;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.view.ViewKey;
import dev.materializer.spring.endpoint.MaterializerEndpoint.MaterializerDescriptor;
import dev.materializer.spring.endpoint.MaterializerEndpoint.RefreshDescriptor;
import dev.materializer.spring.endpoint.MaterializerEndpoint.ViewDescriptor;
import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    void theEngineStatesAreWrittenInLowerCase() {
        this.engine.setSnapshot(Snapshots.of(dev.materializer.core.EngineState.RETRYING, "MongoDB unreachable"));
        MaterializerDescriptor state = this.endpoint.materializer();
        assertThat(state.getState()).isEqualTo("retrying");
        assertThat(state.getReason()).isEqualTo("MongoDB unreachable");
    }
}
