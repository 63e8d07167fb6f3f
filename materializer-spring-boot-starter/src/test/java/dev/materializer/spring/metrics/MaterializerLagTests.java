package dev.materializer.spring.metrics;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.materializer.spring.testing.RecordingMaterializer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The lag: the age of the oldest change heard and not yet applied, 0 when caught up. */
class MaterializerLagTests {

    private final RecordingMaterializer engine = new RecordingMaterializer();

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

    private final MaterializerLag lag = new MaterializerLag(() -> this.engine, this.nanos::get);

    @Test
    void theGaugeExistsAtZeroBeforeAnyChange() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new MaterializerMeterBinder(this.engine, this.lag).bindTo(registry);
        this.engine.setCaughtUp(false);

        assertThat(registry.get(MaterializerMeters.LAG).gauge().value()).as("work, but no change heard").isZero();
        this.engine.setCaughtUp(true);
        assertThat(registry.get(MaterializerMeters.LAG).gauge().value()).isZero();
    }

    @Test
    void aPendingChangeAgesFromWhenItWasWrittenUntilTheEngineIsCaughtUp() {
        this.engine.setCaughtUp(false);
        this.lag.onChange("orders", Duration.ofMillis(300));
        assertThat(this.lag.seconds(this.engine)).isCloseTo(0.3, within(1e-9));

        advance(Duration.ofSeconds(2));
        assertThat(this.lag.seconds(this.engine)).as("it grows while not applied").isCloseTo(2.3, within(1e-9));

        this.engine.setCaughtUp(true);
        assertThat(this.lag.seconds(this.engine)).as("applied").isZero();
        advance(Duration.ofSeconds(10));
        assertThat(this.lag.seconds(this.engine)).as("it does not keep its last value while idle").isZero();
    }

    @Test
    void theOldestPendingChangeCounts() {
        this.engine.setCaughtUp(false);
        this.lag.onChange("orders", null);
        advance(Duration.ofSeconds(1));
        this.lag.onChange("customers", Duration.ofMillis(100));
        advance(Duration.ofSeconds(1));
        assertThat(this.lag.seconds(this.engine)).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void aChangeAfterTheEngineCaughtUpStartsAgainFromItsOwnAge() {
        this.engine.setCaughtUp(false);
        this.lag.onChange("orders", null);
        advance(Duration.ofSeconds(30));
        // Applied between two scrapes; the next change sees the engine caught up before it is marked.
        this.engine.setCaughtUp(true);
        this.lag.onChange("orders", Duration.ofMillis(200));
        this.engine.setCaughtUp(false);
        advance(Duration.ofSeconds(1));

        assertThat(this.lag.seconds(this.engine)).isCloseTo(1.2, within(1e-9));
    }

    @Test
    void aChangeJustHeardIsNotForgottenByAScrapeThatSeesItsPartitionNotYetMarked() {
        this.lag.onChange("orders", null);
        // The engine marks a change just after its listeners hear it: caught up still, for an instant.
        assertThat(this.lag.seconds(this.engine)).isZero();
        this.engine.setCaughtUp(false);
        advance(Duration.ofMillis(500));
        assertThat(this.lag.seconds(this.engine)).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void changeEventsAskTheEngineAtMostEveryCheckInterval() {
        this.engine.setCaughtUp(false);
        for (int i = 0; i < 100; i++) {
            this.lag.onChange("orders", null);
        }
        assertThat(this.engine.caughtUpCalls()).as("the first change opens the span; one check in the interval")
            .isLessThanOrEqualTo(1);
        advance(MaterializerLag.CHECK_INTERVAL);
        this.lag.onChange("orders", null);
        assertThat(this.engine.caughtUpCalls()).isLessThanOrEqualTo(2);
    }

    @Test
    void anEngineThatCannotSayKeepsTheSpanOpen() {
        this.engine.setCaughtUp(false);
        this.lag.onChange("orders", null);
        advance(Duration.ofSeconds(3));
        MaterializerLag withoutEngine = new MaterializerLag(() -> null, this.nanos::get);
        withoutEngine.onChange("orders", null);
        advance(Duration.ofSeconds(1));
        assertThat(withoutEngine.seconds(this.engine)).isCloseTo(1.0, within(1e-9));
    }

    private void advance(Duration duration) {
        this.nanos.addAndGet(duration.toNanos());
    }
}
