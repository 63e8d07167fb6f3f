package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.materializer.spring.testing.RecordingMaterializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** How the lifecycle starts the engine and stops it gracefully. */
@ExtendWith(OutputCaptureExtension.class)
class MaterializerLifecycleTests {

    private final RecordingMaterializer engine = new RecordingMaterializer();

    private final MaterializerLifecycle lifecycle = new MaterializerLifecycle(this.engine, Duration.ofSeconds(3));

    @Test
    void startStartsTheEngineOnce() {
        this.lifecycle.start();
        this.lifecycle.start();
        assertThat(this.lifecycle.isRunning()).isTrue();
        assertThat(this.engine.calls()).containsExactly("start");
    }

    @Test
    void aLifecycleWithoutAutoStartupSaysSoAndStartsWhenAsked() {
        MaterializerLifecycle manual = new MaterializerLifecycle(this.engine, Duration.ofSeconds(3), false);
        assertThat(manual.isAutoStartup()).isFalse();
        assertThat(this.lifecycle.isAutoStartup()).isTrue();
        assertThat(this.engine.calls()).isEmpty();
        manual.start();
        assertThat(manual.isRunning()).isTrue();
        assertThat(this.engine.calls()).containsExactly("start");
    }

    @Test
    void startLogsThatTheEngineIsStartingNotThatItRuns(CapturedOutput output) {
        this.lifecycle.start();
        assertThat(output).contains("Materializer starting (connecting to MongoDB in the background")
            .doesNotContain("Materializer started");
    }

    @Test
    void stopWithACallbackDrainsOnAnotherThreadAndCallsBackAfterTheClose() throws InterruptedException {
        CountDownLatch drainMayEnd = new CountDownLatch(1);
        CountDownLatch calledBack = new CountDownLatch(1);
        AtomicReference<String> callbackThread = new AtomicReference<>();
        this.engine.drainWaitsFor(drainMayEnd, true);
        this.lifecycle.start();

        this.lifecycle.stop(() -> {
            callbackThread.set(Thread.currentThread().getName());
            calledBack.countDown();
        });

        // stop(Runnable) returned while the drain still waits: Spring stops other beans meanwhile.
        assertThat(this.lifecycle.isRunning()).isFalse();
        assertThat(calledBack.getCount()).isEqualTo(1);
        assertThat(this.engine.calls()).doesNotContain("close");
        drainMayEnd.countDown();
        assertThat(calledBack.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.engine.calls()).containsExactly("start", "stopIntake", "drain", "close");
        assertThat(this.engine.drainTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(callbackThread.get()).isEqualTo("materializer-shutdown");
    }

    @Test
    void aDrainThatEndsInTimeIsLogged(CapturedOutput output) {
        this.engine.setInFlight(2);
        this.lifecycle.start();
        this.lifecycle.stop();
        assertThat(output).contains("Materializer drained 2 in flight");
    }

    @Test
    void aDrainThatTimesOutLogsWhatItAbandonedAndStillCloses(CapturedOutput output) {
        this.engine.drainWaitsFor(new CountDownLatch(0), false);
        this.engine.setInFlight(5);
        this.lifecycle.start();
        this.lifecycle.stop();
        assertThat(this.engine.calls()).containsExactly("start", "stopIntake", "drain", "close");
        assertThat(output).contains("Materializer abandoned 5 in flight").contains("materializer.shutdown-timeout=3s");
    }

    @Test
    void anInterruptedDrainStillClosesAndKeepsTheInterrupt() {
        CountDownLatch never = new CountDownLatch(1);
        this.engine.drainWaitsFor(never, true);
        this.lifecycle.start();
        Thread.currentThread().interrupt();
        try {
            this.lifecycle.stop();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        }
        finally {
            Thread.interrupted();
        }
        assertThat(this.engine.calls()).containsExactly("start", "stopIntake", "drain", "close");
    }

    @Test
    void stopWhenNotRunningCallsBackAtOnceAndTouchesNothing() {
        CountDownLatch calledBack = new CountDownLatch(1);
        this.lifecycle.stop(calledBack::countDown);
        assertThat(calledBack.getCount()).isZero();
        assertThat(this.engine.calls()).isEmpty();
    }

    @Test
    void destroyClosesAnEngineThatWasStartedButNeverStopped() {
        this.lifecycle.start();
        this.lifecycle.destroy();
        assertThat(this.engine.calls()).containsExactly("start", "stopIntake", "close");
    }

    @Test
    void destroyAfterAGracefulStopDoesNotCloseAgain() {
        this.lifecycle.start();
        this.lifecycle.stop();
        this.lifecycle.destroy();
        assertThat(this.engine.calls()).containsExactly("start", "stopIntake", "drain", "close");
    }

    @Test
    void destroyOfAnEngineNeverStartedDoesNothing() {
        this.lifecycle.destroy();
        assertThat(this.engine.calls()).isEmpty();
    }

    @Test
    void anEngineThatIsNotTheStartersFailsASecondStartSayingWhy() {
        this.lifecycle.start();
        this.lifecycle.stop();
        assertThatIllegalStateException().isThrownBy(this.lifecycle::start)
            .withMessageContaining("Materializer cannot start again after it was stopped")
            .withMessageContaining(RecordingMaterializer.class.getName());
        assertThat(this.lifecycle.isRunning()).isFalse();
        assertThat(this.engine.calls()).containsExactly("start", "stopIntake", "drain", "close");
    }

    @Test
    void theStartersEngineStartsAgainAfterAStopAsANewEngine(CapturedOutput output) {
        List<RecordingMaterializer> engines = new ArrayList<>();
        RestartableMaterializer restartable = new RestartableMaterializer(() -> {
            RecordingMaterializer engine = new RecordingMaterializer();
            engines.add(engine);
            return engine;
        });
        MaterializerLifecycle restartableLifecycle = new MaterializerLifecycle(restartable, Duration.ofSeconds(3));
        restartableLifecycle.start();
        restartableLifecycle.stop();
        restartableLifecycle.start();
        assertThat(restartableLifecycle.isRunning()).isTrue();
        assertThat(engines).hasSize(2);
        assertThat(engines.get(0).calls()).containsExactly("start", "stopIntake", "drain", "close");
        assertThat(engines.get(1).calls()).containsExactly("start");
        assertThat(restartable.current()).isSameAs(engines.get(1));
        assertThat(output).contains("Materializer starting again with a new engine");
        restartableLifecycle.stop();
        assertThat(engines.get(1).calls()).containsExactly("start", "stopIntake", "drain", "close");
        restartableLifecycle.destroy();
        assertThat(engines.get(1).calls()).containsExactly("start", "stopIntake", "drain", "close");
    }

    @Test
    void aStartWhileTheStopStillDrainsFailsSayingSo() throws InterruptedException {
        CountDownLatch drainMayEnd = new CountDownLatch(1);
        CountDownLatch calledBack = new CountDownLatch(1);
        this.engine.drainWaitsFor(drainMayEnd, true);
        this.lifecycle.start();
        this.lifecycle.stop(calledBack::countDown);
        assertThatIllegalStateException().isThrownBy(this.lifecycle::start)
            .withMessageContaining("Materializer is still stopping");
        drainMayEnd.countDown();
        assertThat(calledBack.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void itStopsBeforeBootsGracefulWebShutdownAndAfterOrdinaryLifecycleBeans() {
        int webServerGracefulShutdownPhase = SmartLifecycle.DEFAULT_PHASE - 1024;
        assertThat(this.lifecycle.getPhase()).isGreaterThan(webServerGracefulShutdownPhase)
            .isLessThan(SmartLifecycle.DEFAULT_PHASE);
    }
}
