package dev.materializer.spring.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.materializer.core.EngineState;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pass is an observation from its start to its report. micrometer-observation-test (its
 * TestObservationRegistry) is not in the offline repository, so a plain registry with a handler
 * that records the contexts it sees stands in.
 */
class MaterializerObservationListenerTests {

    private final Recorder recorder = new Recorder();

    private final ObservationRegistry registry = ObservationRegistry.create();

    private final MaterializerObservationListener listener;

    private final ViewKey view = new ViewKey("acme", "acme:revenue");

    MaterializerObservationListenerTests() {
        this.registry.observationConfig().observationHandler(this.recorder);
        this.listener = new MaterializerObservationListener(() -> this.registry, new DefaultPassObservationConvention());
    }

    @Test
    void aPassIsObservedFromItsStartToItsReportWithLowAndHighCardinalityKeys() {
        this.listener.onPassStarted(this.view);
        assertThat(this.recorder.started).hasSize(1);
        assertThat(this.recorder.stopped).isEmpty();

        this.listener.onPassFinished(new PassReport(this.view, WriteMode.TRANSACTION, PassOutcome.CHANGED, 3, 1,
                Duration.ofMillis(12), null, PassScope.KEYS, "1 key of product"));

        assertThat(this.recorder.stopped).hasSize(1);
        Observation.Context context = this.recorder.stopped.get(0);
        assertThat(context.getName()).isEqualTo("materializer.pass");
        assertThat(context.getContextualName()).isEqualTo("materializer pass");
        assertThat(context.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("outcome", "changed"),
                KeyValue.of("mode", "transaction"), KeyValue.of("scope", "keys"));
        assertThat(context.getHighCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("partition", "acme"),
                KeyValue.of("view", "acme:revenue"));
        assertThat(context.getError()).isNull();
        assertThat(this.listener.openObservations()).isZero();
    }

    @Test
    void theViewIdIsNeverALowCardinalityKey() {
        this.listener.onPassStarted(this.view);
        assertThat(this.recorder.started.get(0).getLowCardinalityKeyValues()).extracting(KeyValue::getKey)
            .containsExactlyInAnyOrder("outcome", "mode", "scope");
    }

    @Test
    void anErroredPassRecordsItsError() {
        this.listener.onPassStarted(this.view);
        this.listener.onPassFinished(new PassReport(this.view, WriteMode.NONE, PassOutcome.ERRORED, 0, 0, Duration.ZERO,
                "maxRows exceeded"));

        Observation.Context context = this.recorder.stopped.get(0);
        assertThat(context.getError()).hasMessage("maxRows exceeded");
        assertThat(context.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("errored");
        assertThat(context.getLowCardinalityKeyValue("scope").getValue()).isEqualTo("full");
    }

    @Test
    void passesOfSeveralViewsAreObservedApart() {
        ViewKey other = new ViewKey("globex", "totals");
        this.listener.onPassStarted(this.view);
        this.listener.onPassStarted(other);
        this.listener.onPassFinished(new PassReport(other, WriteMode.GENERATION, PassOutcome.UNCHANGED, 0, 0,
                Duration.ofMillis(3), null));

        assertThat(this.recorder.stopped).singleElement()
            .satisfies(context -> assertThat(context.getHighCardinalityKeyValue("view").getValue()).isEqualTo("totals"));
        assertThat(this.listener.openObservations()).isEqualTo(1);
    }

    @Test
    void aPassThatEndedWithoutAReportIsStoppedWithAnErrorAtTheViewsNextPassOrTheStop() {
        this.listener.onPassStarted(this.view);
        this.listener.onPassStarted(this.view);
        assertThat(this.recorder.stopped).singleElement()
            .satisfies(context -> assertThat(context.getError()).hasMessageContaining("without a report"));

        this.listener.onStateChanged(EngineState.STOPPED, "closed");
        assertThat(this.recorder.stopped).hasSize(2);
        assertThat(this.listener.openObservations()).isZero();
    }

    @Test
    void aReportWithoutAStartIsIgnored() {
        this.listener.onPassFinished(new PassReport(this.view, WriteMode.NONE, PassOutcome.SUPERSEDED, 0, 0,
                Duration.ZERO, "gave way"));
        assertThat(this.recorder.started).isEmpty();
        assertThat(this.recorder.stopped).isEmpty();
    }

    @Test
    void withTheNoopRegistryNothingIsRecordedAndNothingIsHeld() {
        MaterializerObservationListener noop = new MaterializerObservationListener(() -> ObservationRegistry.NOOP,
                new DefaultPassObservationConvention());
        noop.onPassStarted(this.view);
        noop.onPassFinished(new PassReport(this.view, WriteMode.NONE, PassOutcome.UNCHANGED, 0, 0, Duration.ZERO, null));
        assertThat(noop.openObservations()).isZero();
    }

    /** Records the contexts of the observations it handles. */
    static final class Recorder implements ObservationHandler<Observation.Context> {

        final List<Observation.Context> started = new CopyOnWriteArrayList<>();

        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            this.started.add(context);
        }

        @Override
        public void onStop(Observation.Context context) {
            this.stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }
}
