package dev.materializer.spring.health;

import java.util.List;
import java.util.Map;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.ViewState;
import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/** The health component from the engine's state. */
class MaterializerHealthIndicatorTests {

    private final RecordingMaterializer engine = new RecordingMaterializer();

    private final MaterializerHealthIndicator indicator = new MaterializerHealthIndicator(this.engine);

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({ "RUNNING, UP", "NEW, UNKNOWN", "STARTING, UNKNOWN", "RETRYING, DOWN", "STOPPING, DOWN", "STOPPED, DOWN" })
    void theStatusFollowsTheEngineState(EngineState state, String status) {
        this.engine.setSnapshot(Snapshots.of(state, null));
        assertThat(this.indicator.health().getStatus()).isEqualTo(new Status(status));
    }

    @Test
    void downSaysWhyTheEngineIsNotRunning() {
        this.engine.setSnapshot(Snapshots.of(EngineState.RETRYING, "MongoDB unreachable: connection refused"));
        Health health = this.indicator.health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("state", "retrying")
            .containsEntry("reason", "MongoDB unreachable: connection refused");
    }

    @Test
    void erroredAndCycleViewsAreListedWithoutTurningDown() {
        this.engine.setSnapshot(Snapshots.running());
        Health health = this.indicator.health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("state", "running")
            .containsEntry("openStreams", 3)
            .containsEntry("passesInFlight", 2)
            .containsEntry("lagSeconds", 1.5)
            .containsEntry("views", 4)
            .doesNotContainKey("reason");
        assertThat(health.getDetails().get("errored")).isEqualTo(Map.of("count", 1, "views",
                List.of(Map.of("partition", "acme", "id", "broken", "lastError", "maxRows exceeded: 100001 rows"))));
        assertThat(health.getDetails().get("cycle"))
            .isEqualTo(Map.of("count", 1, "views", List.of(Map.of("partition", "globex", "id", "a"))));
    }

    @Test
    void aHealthyEngineWithoutFaultyViewsListsNone() {
        this.engine.setSnapshot(new MaterializerSnapshot(EngineState.RUNNING, null, 1, 0, null, false, List.of()));
        Health health = this.indicator.health();
        assertThat(health.getDetails()).doesNotContainKeys("errored", "cycle", "lagSeconds");
    }

    @Test
    void theListOfErroredViewsIsBoundedButTheCountIsNot() {
        List<ViewSnapshot> views = java.util.stream.IntStream.range(0, 50)
            .mapToObj(i -> new ViewSnapshot("p", "v" + i, ViewState.ERRORED, List.of("s"), "t", null, null, "bad", null, null))
            .toList();
        this.engine.setSnapshot(new MaterializerSnapshot(EngineState.RUNNING, null, 1, 0, null, false, views));
        Map<?, ?> errored = (Map<?, ?>) this.indicator.health().getDetails().get("errored");
        assertThat(errored.get("count")).isEqualTo(50);
        assertThat((List<?>) errored.get("views")).hasSize(MaterializerHealthIndicator.MAX_LISTED_VIEWS);
    }

    @Test
    void aCheckReadsNoSnapshotSoItDoesNotCopyEveryView() {
        this.engine.setSnapshot(Snapshots.running());
        assertThat(this.indicator.health().getDetails()).containsKeys("errored", "cycle");
        assertThat(this.engine.snapshotCalls()).isZero();
    }

    @Test
    void anEngineThatCannotSayItsStateIsDown() {
        this.engine.snapshotFails(new IllegalStateException("closed"));
        Health health = this.indicator.health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails().get("error").toString()).contains("closed");
    }
}
