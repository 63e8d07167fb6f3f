package dev.materializer.core.pass;

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

    private final PassScheduler scheduler = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, lanes,
            (partition, dirty) -> passes.add(partition + ":" + String.join(",", new java.util.TreeSet<>(dirty.sources()))));

    @AfterEach
    void closeLanes() {
        lanes.close();
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
        PassScheduler blocking = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, lanes, (partition, sources) -> {
            seen.add(sources.sources());
            inPass.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
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
        PassScheduler recording = new PassScheduler(clock, DEBOUNCE, MAX_DELAY, lanes, (partition, dirty) -> taken.add(dirty));

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
    void afterStopIntakeNoPassStartsAndTheDirtyPartitionsStayPendingForTheCheckpoint() throws InterruptedException {
        scheduler.markDirty("acme", "orders");
        scheduler.stopIntake();
        scheduler.markDirty("globex", "orders");
        clock.advance(DEBOUNCE.multipliedBy(20));
        assertThat(lanes.awaitIdle(Duration.ofSeconds(5))).isTrue();

        assertThat(passes).isEmpty();
        assertThat(scheduler.pendingPartitions("orders")).containsExactly("acme");
    }
}
