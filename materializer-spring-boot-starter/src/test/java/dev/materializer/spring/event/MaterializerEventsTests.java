package dev.materializer.spring.event;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.mongodb.client.MongoClient;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import dev.materializer.spring.autoconfigure.MaterializerAutoConfiguration;
import dev.materializer.spring.autoconfigure.MaterializerFactory;
import dev.materializer.spring.testing.RecordingMaterializerFactory;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * An {@code @EventListener} of the application hears the engine: a view that becomes errored and
 * recovers (partition, view id, cause), drift found by the reconciler, the engine's start and stop.
 */
class MaterializerEventsTests {

    private final RecordingMaterializerFactory factory = new RecordingMaterializerFactory();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MaterializerAutoConfiguration.class))
        .withPropertyValues("materializer.database=shop")
        .withBean(MongoClient.class, () -> mock(MongoClient.class))
        .withBean(MaterializerFactory.class, () -> this.factory)
        .withBean(Heard.class);

    private final ViewKey view = new ViewKey("acme", "totals");

    @Test
    void anEventListenerHearsAViewErrorAndRecoverDriftAndTheEnginesStartAndStop() {
        this.runner.run(context -> {
            MaterializerListener engine = this.factory.options().listener();
            List<MaterializerEvent> heard = context.getBean(Heard.class).events;

            engine.onStateChanged(EngineState.RUNNING, null);
            engine.onStateChanged(EngineState.RUNNING, "change streams reopening: orders");
            engine.onViewErrored(this.view, "maxRows exceeded: 100001 rows");
            engine.onPassFinished(pass(PassOutcome.ERRORED));
            engine.onPassFinished(pass(PassOutcome.CHANGED));
            engine.onPassFinished(pass(PassOutcome.UNCHANGED));
            engine.onReconciled(this.view, new VerifyReport(this.view, 4, 1, 1, 0, Duration.ofMillis(3), null), true);
            engine.onReconciled(this.view, new VerifyReport(this.view, 4, 1, 0, 0, Duration.ofMillis(3), null), false);
            engine.onStateChanged(EngineState.STOPPED, "the application closes");

            assertThat(heard).extracting(event -> event.getClass().getSimpleName()).containsExactly(
                    "MaterializerStartedEvent", "ViewErroredEvent", "ViewRecoveredEvent", "ViewDriftEvent",
                    "MaterializerStoppedEvent");
            assertThat(heard.get(1)).isInstanceOfSatisfying(ViewErroredEvent.class, errored -> {
                assertThat(errored.getPartition()).isEqualTo("acme");
                assertThat(errored.getViewId()).isEqualTo("totals");
                assertThat(errored.getCause()).isEqualTo("maxRows exceeded: 100001 rows");
            });
            assertThat(heard.get(2)).isInstanceOfSatisfying(ViewRecoveredEvent.class,
                    recovered -> assertThat(recovered.getViewId()).isEqualTo("totals"));
            assertThat(heard.get(3)).isInstanceOfSatisfying(ViewDriftEvent.class,
                    drift -> assertThat(drift.getDifferences()).isEqualTo(2));
            assertThat(heard.get(4)).isInstanceOfSatisfying(MaterializerStoppedEvent.class,
                    stopped -> assertThat(stopped.getCause()).isEqualTo("the application closes"));
        });
    }

    private PassReport pass(PassOutcome outcome) {
        return new PassReport(this.view, WriteMode.GENERATION, outcome, 0, 0, Duration.ofMillis(5),
                outcome == PassOutcome.ERRORED ? "maxRows exceeded: 100001 rows" : null);
    }

    static class Heard {

        final List<MaterializerEvent> events = new CopyOnWriteArrayList<>();

        @EventListener
        void on(MaterializerEvent event) {
            this.events.add(event);
        }
    }
}
