package dev.materializer.core.pass;

import dev.materializer.core.CatchUpProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.materializer.core.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PassSchedulerTest {

    private static final Duration DEBOUNCE = Duration.ofMillis(100);

    private static final Duration MAX_DELAY = Duration.ofSeconds(1);

    private final ManualClock clock = new ManualClock();

    private final PartitionLanes lanes = new PartitionLanes(4);

    private final List<String> passes = Collections.synchronizedList(new ArrayList<>());

    private static final Duration RETRY = Duration.ofMillis(200);

    private final PassScheduler scheduler = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes,
            (partition, dirty) -> {
                passes.add(partition + ":" + String.join(",", new java.util.TreeSet<>(dirty.sources())));
                return new DirtySources();
            });

    @AfterEach
    void closeLanes() {
        lanes.close();
    }

    /** A pass that records what it took, says it started, and holds its lane until released. */
    private static PassScheduler.PassRunner blocking(List<Set<String>> seen, CountDownLatch inPass,
            CountDownLatch release) {
        return (partition, sources) -> {
            seen.add(sources.sources());
            inPass.countDown();
            awaitQuietly(release);
            return new DirtySources();
        };
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aBurstOfChangesWithinTheDebounceGivesOnePassPerPartition() throws InterruptedException {
        int burst = 500;
        for (int i = 0; i < burst; i++) {
            clock.advance(Duration.ofMillis(1));
            scheduler.markDirty("acme", i % 2 == 0 ? "orders" : "customers");
        }
        clock.advance(DEBOUNCE.minusMillis(1));
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(passes).isEmpty();

        clock.advance(Duration.ofMillis(1));

        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(passes).containsExactly("acme:customers,orders");
    }

    @Test
    void aPartitionThatNeverGoesQuietStillPassesAtTheMaxDelay() throws InterruptedException {
        for (int i = 0; i < 30; i++) {
            scheduler.markDirty("acme", "orders");
            clock.advance(Duration.ofMillis(50));
        }
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(passes).as("30 changes 50 ms apart span 1.5 s, over the 1 s max delay").hasSize(1);
    }

    @Test
    void partitionsPassIndependently() throws InterruptedException {
        scheduler.markDirty("acme", "orders");
        scheduler.markDirty("globex", "orders");
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(passes).containsExactlyInAnyOrder("acme:orders", "globex:orders");
    }

    @Test
    void aChangeDuringAPassGivesASecondPass() throws InterruptedException {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Set<String>> seen = Collections.synchronizedList(new ArrayList<>());
        PassScheduler blocking = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, blocking(seen, inPass, release));
        blocking.markDirty("acme", "orders");
        clock.advance(DEBOUNCE);
        assertThat(inPass.await(5, TimeUnit.SECONDS)).isTrue();

        blocking.markDirty("acme", "customers");
        assertThat(blocking.pendingPartitions("orders")).as("taken by the running pass").containsExactly("acme");
        assertThat(blocking.pendingPartitions("customers")).as("dirty again").containsExactly("acme");
        clock.advance(DEBOUNCE);
        release.countDown();
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(seen).containsExactly(Set.of("orders"), Set.of("customers"));
        assertThat(blocking.pendingPartitions("orders")).isEmpty();
    }

    @Test
    void marksForSomeViewsAffectOnlyThoseViewsUntilASourceIsMarkedForAll() throws InterruptedException {
        List<DirtySources> taken = Collections.synchronizedList(new ArrayList<>());
        PassScheduler recording = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, (partition, dirty) -> {
            taken.add(dirty);
            return new DirtySources();
        });

        recording.markDirty("acme", "orders", List.of("revenue"));
        recording.markDirty("acme", "orders", List.of("top"));
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        DirtySources first = taken.get(0);
        assertThat(first.affects("revenue", List.of("orders"))).isTrue();
        assertThat(first.affects("top", List.of("orders"))).isTrue();
        assertThat(first.affects("by-category", List.of("orders", "products"))).isFalse();

        recording.markDirty("acme", "orders", List.of("revenue"));
        recording.markDirty("acme", "orders");
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(taken.get(1).affects("by-category", List.of("orders", "products"))).isTrue();
        assertThat(taken.get(1).affects("unrelated", List.of("customers"))).isFalse();
    }

    @Test
    void afterStopIntakeNoPassStartsAndEveryMarkStaysPendingForTheCheckpoint() throws InterruptedException {
        scheduler.markDirty("acme", "orders");
        scheduler.stopIntake();
        // The streams go on reading until they close: what they hear must reach the last checkpoint.
        scheduler.markDirty("globex", "orders");
        clock.advance(DEBOUNCE.multipliedBy(20));
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(passes).isEmpty();
        assertThat(scheduler.pendingPartitions("orders")).containsExactlyInAnyOrder("acme", "globex");
    }

    @Test
    void workAPassCouldNotApplyStaysPendingUntilItsRetryHasRun() throws InterruptedException {
        List<DirtySources> runs = Collections.synchronizedList(new ArrayList<>());
        PassScheduler giving = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, (partition, dirty) -> {
            runs.add(dirty);
            if (runs.size() > 1) {
                return new DirtySources();
            }
            DirtySources again = new DirtySources();
            again.add("orders", List.of("revenue"));
            return again;
        });
        giving.markDirty("acme", "orders");
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(runs).hasSize(1);
        assertThat(giving.pendingPartitions("orders")).as("the view that gave way waits for its retry").containsExactly("acme");

        clock.advance(RETRY);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(runs).hasSize(2);
        assertThat(runs.get(1).affects("revenue", List.of("orders"))).isTrue();
        assertThat(runs.get(1).affects("top", List.of("orders"))).as("only what gave way runs again").isFalse();
        assertThat(giving.pendingPartitions("orders")).isEmpty();
    }

    @Test
    void aPassThatThrowsPutsEverythingItTookBack() throws InterruptedException {
        List<String> runs = Collections.synchronizedList(new ArrayList<>());
        PassScheduler throwing = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, (partition, dirty) -> {
            runs.add(partition);
            if (runs.size() == 1) {
                throw new IllegalArgumentException("a bug of ours");
            }
            return new DirtySources();
        });
        throwing.markDirty("acme", "orders");
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(throwing.pendingPartitions("orders")).containsExactly("acme");
        clock.advance(RETRY);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(runs).hasSize(2);
        assertThat(throwing.pendingPartitions("orders")).isEmpty();
    }

    @Test
    void aCatchUpMarksEveryViewAndIsPendingForEverySource() {
        scheduler.stopIntake();
        scheduler.markCatchUp("acme");

        assertThat(scheduler.pendingPartitions("orders")).containsExactly("acme");
        assertThat(scheduler.pendingPartitions("customers")).containsExactly("acme");
        DirtySources marks = scheduler.dirtyOf("acme");
        assertThat(marks).isNotNull();
        assertThat(marks.affects("any-view", List.of("anything"))).isTrue();
    }

    @Test
    void duringALongPassMarksMergeIntoOneWaitingPass() throws InterruptedException {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Set<String>> seen = Collections.synchronizedList(new ArrayList<>());
        PassScheduler blocking = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, blocking(seen, inPass, release));
        blocking.markDirty("acme", "orders");
        clock.advance(DEBOUNCE);
        assertThat(inPass.await(5, TimeUnit.SECONDS)).isTrue();

        for (int i = 0; i < 100; i++) {
            blocking.markDirty("acme", "source-" + i);
            clock.advance(MAX_DELAY);
        }
        assertThat(lanes.inFlight()).as("the running pass and one waiting pass").isEqualTo(2);
        release.countDown();
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(seen).hasSize(2);
        assertThat(seen.get(1)).hasSize(100);
    }

    @Test
    void catchUpsTakeTurnsSoAStartThatCatchesUpManyPartitionsQueuesAFewPassesAtATime() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger mostAtOnce = new java.util.concurrent.atomic.AtomicInteger();
        PassScheduler paced = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 2, lanes, (partition, sources) -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            awaitQuietly(release);
            running.decrementAndGet();
            return new DirtySources();
        });
        for (int p = 0; p < 50; p++) {
            paced.markCatchUp("t" + p);
        }
        assertThat(lanes.inFlight()).as("two catch-ups in the lanes, the others wait their turn").isEqualTo(2);
        assertThat(paced.pendingPartitions("orders")).as("every one pending for the checkpoints").hasSize(50);
        assertThat(paced.catchUpProgress()).isEqualTo(new CatchUpProgress(50, 0, 2, 48));

        release.countDown();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> paced.catchUpProgress().done() == 50);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(mostAtOnce.get()).isLessThanOrEqualTo(2);
        assertThat(paced.pendingPartitions("orders")).isEmpty();
    }

    @Test
    void aCatchUpAskedForAgainWhileItsPassRunsRunsOnceMoreAfterIt() throws InterruptedException {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Set<String>> seen = Collections.synchronizedList(new ArrayList<>());
        PassScheduler paced = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, blocking(seen, inPass, release));
        DirtySources customers = new DirtySources();
        customers.addAll("customers");
        paced.catchUp("acme", customers);
        assertThat(inPass.await(5, TimeUnit.SECONDS)).isTrue();
        // A second stream opens while the first catch-up runs, with no clock moving and no change coming.
        DirtySources orders = new DirtySources();
        orders.addAll("orders");
        paced.catchUp("acme", orders);
        release.countDown();

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(seen).containsExactly(Set.of("customers"), Set.of("orders"));
        assertThat(paced.pendingPartitions("orders")).isEmpty();
    }

    @Test
    void theBacklogShowsAMarkArmedThenTakenThenNothing() throws InterruptedException {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Set<String>> seen = Collections.synchronizedList(new ArrayList<>());
        PassScheduler blocking = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, blocking(seen, inPass, release));
        assertThat(blocking.backlog().isEmpty()).isTrue();

        blocking.markDirty("acme", "orders");
        PassScheduler.Backlog marked = blocking.backlog();
        assertThat(marked.dirty()).containsExactly("acme");
        assertThat(marked.armed()).as("its debounce timer").containsExactly("acme");
        assertThat(marked.stuck()).isEmpty();

        clock.advance(DEBOUNCE);
        assertThat(inPass.await(5, TimeUnit.SECONDS)).isTrue();
        PassScheduler.Backlog running = blocking.backlog();
        assertThat(running.dirty()).isEmpty();
        assertThat(running.taken()).containsExactly("acme");
        assertThat(running.isEmpty()).isFalse();

        release.countDown();
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(blocking.backlog().isEmpty()).isTrue();
    }

    @Test
    void aMarkAfterStopIntakeIsPendingButNotStuck() {
        scheduler.stopIntake();
        scheduler.markDirty("acme", "orders");

        PassScheduler.Backlog backlog = scheduler.backlog();
        assertThat(backlog.intake()).isFalse();
        assertThat(backlog.dirty()).containsExactly("acme");
        assertThat(backlog.armed()).isEmpty();
        assertThat(backlog.stuck()).as("stopped on purpose: the last checkpoint names it").isEmpty();
    }

    @Test
    void progressNumbersTheTakesAndSaysWhatTheNewestEndedPassHandedBack() throws InterruptedException {
        List<String> handBack = Collections.synchronizedList(new ArrayList<>(List.of("orders")));
        PassScheduler handing = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes, (partition, dirty) -> {
            DirtySources again = new DirtySources();
            if (!handBack.isEmpty()) {
                again.addAll(handBack.remove(0));
            }
            return again;
        });
        Set<String> orders = Set.of("orders");
        assertThat(handing.progress("acme", orders)).isEqualTo(new PassScheduler.PassProgress(0, 0, false, false));

        handing.markDirty("acme", "orders");
        assertThat(handing.progress("acme", orders).pending()).isTrue();
        assertThat(handing.progress("acme", Set.of("products")).pending()).as("marks of another source").isFalse();

        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(handing.progress("acme", orders))
            .as("pass 1 handed orders back: pending again, for a retry")
            .isEqualTo(new PassScheduler.PassProgress(1, 1, true, true));

        clock.advance(RETRY);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(handing.progress("acme", orders)).isEqualTo(new PassScheduler.PassProgress(2, 2, false, false));
        assertThat(handing.progress("globex", orders)).isEqualTo(new PassScheduler.PassProgress(0, 0, false, false));
    }

    @Test
    void aPassThatLeftItsMarksToAnotherInstanceAppliedNone() throws InterruptedException {
        java.util.concurrent.atomic.AtomicBoolean owned = new java.util.concurrent.atomic.AtomicBoolean(false);
        PassScheduler flapping = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, RETRY, 4, lanes,
                new PassScheduler.PassRunner() {
                    @Override
                    public DirtySources runPass(String partition, DirtySources dirty) {
                        return new DirtySources();
                    }

                    @Override
                    public PassScheduler.Ran run(String partition, DirtySources dirty) {
                        return owned.get() ? PassScheduler.Ran.here(new DirtySources()) : PassScheduler.Ran.elsewhere();
                    }
                });
        Set<String> orders = Set.of("orders");
        flapping.markDirty("acme", "orders");
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(flapping.progress("acme", orders))
            .as("pass 1 ran elsewhere: nothing pending here, and nothing of it applied")
            .isEqualTo(new PassScheduler.PassProgress(1, 1, true, false));

        owned.set(true);
        flapping.markDirty("acme", "orders");
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(flapping.progress("acme", orders)).isEqualTo(new PassScheduler.PassProgress(2, 2, false, false));
    }
}
