package dev.materializer.core.pass;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.materializer.core.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pass that takes the waiting passes of other partitions with it (a batch): their marks are taken
 * as their own passes would take them, stay pending for the checkpoints while the batch runs, come
 * back as retries before they are let go — all of them when the batch throws, or when the runner
 * gives no outcome for one — and their lanes run nothing else meanwhile.
 */
class BatchedCompanionsTest {

    private static final Duration DEBOUNCE = Duration.ofMillis(100);

    private static final Duration RETRY = Duration.ofMillis(200);

    private final ManualClock clock = new ManualClock();

    /** One thread: the leader's pass runs while the others wait in the pool's queue. */
    private final PartitionLanes lanes = new PartitionLanes(1);

    @AfterEach
    void closeLanes() {
        lanes.close();
    }

    @Test
    void aBatchTakesTheWaitingPassesWhoseMarksItAcceptsAndTheirMarksStayPendingUntilItEnds() throws Exception {
        CountDownLatch inBatch = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        Map<String, Set<String>> pendingDuring = new HashMap<>();
        PassScheduler[] scheduler = new PassScheduler[1];
        scheduler[0] = new PassScheduler(clock, DEBOUNCE, DEBOUNCE.multipliedBy(10), RETRY, 4, lanes,
                new BatchingRunner(ran, (partition, marks) -> !partition.equals("initech")) {
                    @Override
                    void during(Map<String, DirtySources> batch) {
                        pendingDuring.put("orders", scheduler[0].pendingPartitions("orders"));
                        inBatch.countDown();
                        await(release);
                    }
                });
        for (String partition : List.of("acme", "globex", "hooli", "initech")) {
            scheduler[0].markDirty(partition, "orders");
        }

        firedWhileThePoolIsBusy();
        assertThat(inBatch.await(5, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(pendingDuring.get("orders")).as("the companions' marks, taken, are pending for the checkpoints")
            .contains("acme", "globex", "hooli", "initech");
        assertThat(ran).as("one batch of the three it accepts; the refused one runs in its own pass")
            .containsExactlyInAnyOrder("batch acme,globex,hooli", "alone initech");
        assertThat(scheduler[0].pendingPartitions("orders")).isEmpty();
        assertThat(scheduler[0].backlog().isEmpty()).isTrue();
    }

    @Test
    void whatABatchHandsBackRunsAgainAndACompanionWithoutAnOutcomeRunsAgainWhole() throws Exception {
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        PassScheduler scheduler = new PassScheduler(clock, DEBOUNCE, DEBOUNCE.multipliedBy(10), RETRY, 4, lanes,
                new BatchingRunner(ran, (partition, marks) -> true) {
                    @Override
                    Map<String, PassScheduler.Ran> outcomes(Map<String, DirtySources> batch) {
                        if (ran.size() > 1) {
                            return super.outcomes(batch);
                        }
                        Map<String, PassScheduler.Ran> outcomes = new HashMap<>();
                        DirtySources again = new DirtySources();
                        again.add("orders", List.of("revenue"));
                        // acme hands one view back; globex is missing from the answer
                        outcomes.put("acme", PassScheduler.Ran.here(again));
                        return outcomes;
                    }
                });
        scheduler.markDirty("acme", "orders");
        scheduler.markDirty("globex", "orders");

        firedWhileThePoolIsBusy();
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        clock.advance(RETRY);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        // What went back ran again: in the companion's own waiting pass at once, or after the retry delay
        assertThat(timesRan(ran, "acme")).as("acme handed a view back").isEqualTo(2);
        assertThat(timesRan(ran, "globex")).as("globex had no outcome").isEqualTo(2);
        assertThat(scheduler.pendingPartitions("orders")).isEmpty();
    }

    private static long timesRan(List<String> ran, String partition) {
        return ran.stream().filter(run -> List.of(run.substring(run.indexOf(' ') + 1).split(",")).contains(partition))
            .count();
    }

    @Test
    void aBatchThatThrowsPutsBackTheMarksOfEveryPartitionItTook() throws Exception {
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        PassScheduler scheduler = new PassScheduler(clock, DEBOUNCE, DEBOUNCE.multipliedBy(10), RETRY, 4, lanes,
                new BatchingRunner(ran, (partition, marks) -> true) {
                    @Override
                    Map<String, PassScheduler.Ran> outcomes(Map<String, DirtySources> batch) {
                        if (ran.size() == 1) {
                            // Every mark of the batch goes back: the leader's and the companion's
                            throw new IllegalStateException("a bug of ours");
                        }
                        return super.outcomes(batch);
                    }
                });
        scheduler.markDirty("acme", "orders");
        scheduler.markDirty("globex", "orders");

        firedWhileThePoolIsBusy();
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        clock.advance(RETRY);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(timesRan(ran, "acme")).isEqualTo(2);
        assertThat(timesRan(ran, "globex")).isEqualTo(2);
        assertThat(scheduler.pendingPartitions("orders")).isEmpty();
    }

    /** Fires the debounce timers while the pool's one thread is busy, so every pass waits in its lane first. */
    private void firedWhileThePoolIsBusy() throws InterruptedException {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch free = new CountDownLatch(1);
        lanes.submit("elsewhere", () -> {
            busy.countDown();
            await(free);
            return null;
        });
        assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
        clock.advance(DEBOUNCE);
        free.countDown();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** A runner that takes every companion its test accepts and records what ran together. */
    private static class BatchingRunner implements PassScheduler.PassRunner {

        private final List<String> ran;

        private final java.util.function.BiPredicate<String, DirtySources> accepts;

        BatchingRunner(List<String> ran, java.util.function.BiPredicate<String, DirtySources> accepts) {
            this.ran = ran;
            this.accepts = accepts;
        }

        @Override
        public DirtySources runPass(String partition, DirtySources dirty) {
            ran.add("alone " + partition);
            return new DirtySources();
        }

        @Override
        public Map<String, PassScheduler.Ran> runWith(String partition, DirtySources dirty,
                PassScheduler.Companions companions) {
            if (!accepts.test(partition, dirty)) {
                return Map.of(partition, run(partition, dirty));
            }
            Map<String, DirtySources> batch = new java.util.TreeMap<>(companions.take(10, accepts));
            batch.put(partition, dirty);
            ran.add("batch " + String.join(",", batch.keySet()));
            during(batch);
            return outcomes(batch);
        }

        void during(Map<String, DirtySources> batch) {
        }

        Map<String, PassScheduler.Ran> outcomes(Map<String, DirtySources> batch) {
            Map<String, PassScheduler.Ran> outcomes = new HashMap<>();
            batch.keySet().forEach(partition -> outcomes.put(partition, PassScheduler.Ran.here(new DirtySources())));
            return outcomes;
        }
    }
}
