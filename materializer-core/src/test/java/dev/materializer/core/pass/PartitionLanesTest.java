package dev.materializer.core.pass;

import dev.materializer.core.EngineClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PartitionLanesTest {

    private final PartitionLanes lanes = new PartitionLanes(2);

    @AfterEach
    void close() {
        lanes.close();
    }

    @Test
    void theWorkOfOnePartitionRunsOneAtATimeInOrder() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            int index = i;
            results.add(lanes.submit("acme", () -> {
                maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                order.add(index);
                running.decrementAndGet();
                return index;
            }));
        }
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

        assertThat(maxRunning.get()).isEqualTo(1);
        assertThat(order).isSorted().hasSize(200);
    }

    @Test
    void differentPartitionsRunAtTheSameTime() throws Exception {
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> a = lanes.submit("acme", () -> {
            bothRunning.countDown();
            return bothRunning.await(5, TimeUnit.SECONDS);
        });
        CompletableFuture<Boolean> b = lanes.submit("globex", () -> {
            bothRunning.countDown();
            return bothRunning.await(5, TimeUnit.SECONDS);
        });

        assertThat(a.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(b.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void drainWaitsForWorkInFlightAndReportsATimeout() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        lanes.submit("acme", () -> release.await(5, TimeUnit.SECONDS));
        lanes.submit("acme", () -> null);

        assertThat(lanes.inFlight()).isEqualTo(2);
        assertThat(lanes.awaitIdle(Duration.ofMillis(50))).isFalse();

        release.countDown();

        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(lanes.inFlight()).isZero();
    }

    @Test
    void aFailingTaskFailsItsFutureAndTheLaneGoesOn() throws Exception {
        CompletableFuture<Object> failed = lanes.submit("acme", () -> {
            throw new IllegalStateException("boom");
        });
        CompletableFuture<String> next = lanes.submit("acme", () -> "after");

        assertThat(next.get(5, TimeUnit.SECONDS)).isEqualTo("after");
        assertThat(failed).isCompletedExceptionally();
    }

    @Test
    void afterCloseNoTaskStartsNotEvenInALaneWaitingForAThreadOfThePool() throws Exception {
        PartitionLanes one = new PartitionLanes(1);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        one.submit("acme", () -> {
            holding.countDown();
            return release.await(5, TimeUnit.SECONDS);
        });
        assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
        // The only thread is busy: globex's lane waits in the pool's queue for it.
        AtomicInteger ran = new AtomicInteger();
        one.submit("globex", ran::incrementAndGet);

        one.close();
        // A timer of a crashed engine still queues work in that lane after the close.
        one.submit("globex", ran::incrementAndGet);
        release.countDown();

        assertThat(one.awaitIdle(Duration.ofSeconds(5))).as("everything counted out").isTrue();
        assertThat(ran).as("queued work that had not started does not run").hasValue(0);
    }

    @Test
    void workQueuedAtTheCloseEndsWithTheCloseAsItsCauseAndTheRunningTaskFinishes() throws Exception {
        PartitionLanes one = new PartitionLanes(1);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> running = one.submit("acme", () -> {
            holding.countDown();
            return release.await(5, TimeUnit.SECONDS);
        });
        assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
        // Queued in the running lane, and in a lane whose turn waits in the pool's queue for the only thread.
        CompletableFuture<String> behind = one.submit("acme", () -> "never");
        CompletableFuture<String> waiting = one.submit("globex", () -> "never");

        one.close();

        assertClosed(behind);
        assertClosed(waiting);
        assertThat(running).as("the task running at the close").isNotDone();
        release.countDown();
        assertThat(running.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(one.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(one.inFlight()).isZero();
    }

    @Test
    void workSubmittedAfterTheCloseEndsAtOnceWithTheCloseAsItsCause() throws Exception {
        PartitionLanes one = new PartitionLanes(1);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        one.submit("acme", () -> {
            holding.countDown();
            return release.await(5, TimeUnit.SECONDS);
        });
        assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
        one.close();

        // Into the lane still running, into a new lane, and once nothing runs any more.
        assertClosed(one.submit("acme", () -> "never"));
        assertClosed(one.submit("globex", () -> "never"));
        release.countDown();
        assertThat(one.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertClosed(one.submit("acme", () -> "never"));
        assertThat(one.inFlight()).isZero();
    }

    @Test
    void aCallerReactingToAClosedFutureMaySubmitAgainWithoutBreakingTheClose() throws Exception {
        PartitionLanes one = new PartitionLanes(1);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        one.submit("acme", () -> {
            holding.countDown();
            return release.await(5, TimeUnit.SECONDS);
        });
        assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
        AtomicReference<CompletableFuture<String>> again = new AtomicReference<>();
        // A dependent action runs on the thread that completes the future: the closing one, here.
        one.submit("acme", () -> "never").whenComplete((result, failure) -> again.set(one.submit("acme", () -> "again")));

        one.close();

        assertThat(again.get()).as("the dependent action ran at the close").isNotNull();
        assertClosed(again.get());
        release.countDown();
        assertThat(one.awaitIdle(Duration.ofSeconds(5))).isTrue();
    }

    private static void assertClosed(CompletableFuture<?> future) {
        assertThat(future).as("ended by the close").isCompletedExceptionally();
        assertThatThrownBy(() -> future.get(0, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(EngineClosedException.class).hasMessageContaining("closed");
    }

    @Test
    void aHeldLaneStartsNoTaskUntilItsHoldEndsAndABusyLaneCannotBeHeld() throws Exception {
        PartitionLanes.Held held = lanes.hold("acme", 1);
        assertThat(held).isNotNull();
        assertThat(lanes.hold("acme", 1)).as("held once at a time").isNull();
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<Object> waiting = lanes.submit("acme", () -> ran.incrementAndGet());
        Thread.sleep(100); // long enough for a turn of the pool: it must not start the task
        assertThat(ran.get()).isZero();

        held.close();
        waiting.get(5, TimeUnit.SECONDS);
        assertThat(ran.get()).isOne();

        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Object> busy = lanes.submit("acme", () -> {
            running.countDown();
            finish.await(5, TimeUnit.SECONDS);
            return null;
        });
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lanes.hold("acme", 1)).as("a lane running a task").isNull();
        finish.countDown();
        busy.get(5, TimeUnit.SECONDS);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
    }
}
