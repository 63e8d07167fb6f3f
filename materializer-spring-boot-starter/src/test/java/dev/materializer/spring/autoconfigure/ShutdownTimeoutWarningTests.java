package dev.materializer.spring.autoconfigure;

import java.time.Duration;

import com.mongodb.client.MongoClient;
import dev.materializer.spring.testing.RecordingMaterializerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/** The startup warning when the engine's shutdown timeout does not fit in Spring's shutdown phase. */
@ExtendWith(OutputCaptureExtension.class)
class ShutdownTimeoutWarningTests {

    private static final String WARNING = "materializer.shutdown-timeout";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MaterializerAutoConfiguration.class))
        .withBean(MongoClient.class, () -> mock(MongoClient.class))
        .withBean(MaterializerFactory.class, RecordingMaterializerFactory::new)
        .withPropertyValues("materializer.database=shop");

    @Test
    void theDefaultShutdownTimeoutIsBelowBootsDefaultPhaseTimeout(CapturedOutput output) {
        assertThat(new MaterializerProperties().getShutdownTimeout())
            .isLessThan(new LifecycleProperties().getTimeoutPerShutdownPhase());
        this.runner.run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain(WARNING);
    }

    @Test
    void aShutdownTimeoutEqualToThePhaseTimeoutIsWarnedAboutNamingBothKeys(CapturedOutput output) {
        this.runner.withPropertyValues("materializer.shutdown-timeout=30s").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("WARN")
                .contains("materializer.shutdown-timeout (30s) is not below "
                        + "spring.lifecycle.timeout-per-shutdown-phase (30s)")
                .contains("set materializer.shutdown-timeout below spring.lifecycle.timeout-per-shutdown-phase");
        });
    }

    @Test
    void aPhaseTimeoutSetBelowTheDefaultShutdownTimeoutIsWarnedAbout(CapturedOutput output) {
        this.runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=15s")
            .run(context -> assertThat(output).contains(
                    "materializer.shutdown-timeout (20s) is not below spring.lifecycle.timeout-per-shutdown-phase (15s)"));
    }

    @Test
    void bothRaisedInStepIsNotWarnedAbout(CapturedOutput output) {
        this.runner.withPropertyValues("materializer.shutdown-timeout=50s", "spring.lifecycle.timeout-per-shutdown-phase=1m")
            .run(context -> assertThat(context).getBean(MaterializerLifecycle.class).extracting("shutdownTimeout")
                .isEqualTo(Duration.ofSeconds(50)));
        assertThat(output).doesNotContain(WARNING);
    }

    @Test
    void theCheckComparesTheTwoTimeouts() {
        assertThat(ShutdownTimeouts.warnIfNotBelow(Duration.ofSeconds(29), Duration.ofSeconds(30))).isFalse();
        assertThat(ShutdownTimeouts.warnIfNotBelow(Duration.ofSeconds(30), Duration.ofSeconds(30))).isTrue();
        assertThat(ShutdownTimeouts.warnIfNotBelow(Duration.ofMinutes(1), Duration.ofSeconds(30))).isTrue();
    }
}
