package dev.materializer.core.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.materializer.core.time.ManualClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@link PartitionOwnership} and the {@link OwnedPartitions} it publishes, over heartbeats the test decides. */
class PartitionOwnershipTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static final Set<String> PARTITIONS = partitions(20);

    private final FakeHeartbeats heartbeats = new FakeHeartbeats();

    private final ManualClock clock = new ManualClock();

    private final List<Set<String>> acquired = new CopyOnWriteArrayList<>();

    private final OwnedPartitions owned = new OwnedPartitions("a");

    private final PartitionOwnership ownership = new PartitionOwnership(owned, heartbeats, clock, LEASE,
            () -> PARTITIONS, acquired::add);

    @Test
    void beforeAnyBeatAnInstanceOwnsEveryPartition() {
        assertThat(PARTITIONS).allMatch(owned::owns);
        assertThat(owned.liveInstances()).isEmpty();
    }

    @Test
    void aLoneInstanceOwnsEveryPartitionAndAcquiresNothing() {
        heartbeats.live = Set.of("a");
        ownership.refresh();

        assertThat(PARTITIONS).allMatch(owned::owns);
        assertThat(acquired).isEmpty();
    }

    @Test
    void withAnotherInstanceEachPartitionHasOneOwner() {
        heartbeats.live = Set.of("a", "b");
        ownership.refresh();

        for (String partition : PARTITIONS) {
            assertThat(owned.owns(partition)).isEqualTo(Rendezvous.owner(partition, Set.of("a", "b")).equals("a"));
        }
        assertThat(acquired).as("losing partitions acquires none").isEmpty();
    }

    @Test
    void whenAnInstanceGoesItsPartitionsAreAcquiredOnceEach() {
        heartbeats.live = Set.of("a", "b", "c");
        ownership.refresh();
        heartbeats.live = Set.of("a", "c");
        ownership.refresh();
        ownership.refresh();

        Set<String> expected = new TreeSet<>();
        for (String partition : PARTITIONS) {
            if (Rendezvous.owner(partition, Set.of("a", "b", "c")).equals("b")
                    && Rendezvous.owner(partition, Set.of("a", "c")).equals("a")) {
                expected.add(partition);
            }
        }
        assertThat(expected).isNotEmpty();
        assertThat(acquired).containsExactly(expected);
    }

    @Test
    void theCountOfChangesMovesWithEveryNewLiveSetAndIsOddWhileACatchUpIsMarked() {
        List<Long> whileAcquiring = new CopyOnWriteArrayList<>();
        PartitionOwnership watching = new PartitionOwnership(owned, heartbeats, clock, LEASE, () -> PARTITIONS,
                gained -> whileAcquiring.add(owned.changes()));
        assertThat(owned.changes()).isZero();

        heartbeats.live = Set.of("a", "b");
        watching.refresh();
        assertThat(owned.changes()).as("partitions moved away").isEqualTo(2);
        watching.refresh();
        assertThat(owned.changes()).as("the same live set moves nothing").isEqualTo(2);

        heartbeats.live = Set.of("a");
        watching.refresh();
        assertThat(whileAcquiring).as("odd while the catch-ups of the regained partitions are marked").containsExactly(3L);
        assertThat(owned.changes()).isEqualTo(4);
    }

    @Test
    void gainedPartitionsAreHandedOverOwnedBeforeTheNewLiveSetIsPublished() {
        List<Set<String>> liveWhileAcquiring = new CopyOnWriteArrayList<>();
        List<Boolean> ownedWhileAcquiring = new CopyOnWriteArrayList<>();
        PartitionOwnership watched = new PartitionOwnership(owned, heartbeats, clock, LEASE, () -> PARTITIONS, gained -> {
            liveWhileAcquiring.add(owned.liveInstances());
            ownedWhileAcquiring.add(gained.stream().allMatch(owned::owns));
        });
        heartbeats.live = Set.of("a", "b", "c");
        watched.refresh();
        heartbeats.live = Set.of("a", "c");
        watched.refresh();

        // A checkpoint that reads the new live set must find the catch-ups marked: they come first.
        assertThat(liveWhileAcquiring).containsExactly(Set.of("a", "b", "c"));
        assertThat(ownedWhileAcquiring).as("owned while their catch-ups are marked").containsExactly(true);
        assertThat(owned.liveInstances()).isEqualTo(Set.of("a", "c"));
    }

    @Test
    void theTimerBeatsEveryThirdOfTheLeaseOffTheClockThread() {
        heartbeats.live = Set.of("a", "b");
        ownership.start();
        try {
            clock.advance(LEASE.dividedBy(3).minusMillis(1));
            assertThat(heartbeats.beats.get()).isZero();

            clock.advance(Duration.ofMillis(1));
            await().atMost(Duration.ofSeconds(10)).until(() -> heartbeats.beats.get() == 1);
            assertThat(heartbeats.threads).containsExactly("materializer-heartbeat");

            heartbeats.live = Set.of("a");
            clock.advance(LEASE.dividedBy(3));
            await().atMost(Duration.ofSeconds(10)).until(() -> acquired.size() == 1);
        }
        finally {
            ownership.close();
        }
    }

    @Test
    void closingLeavesAndStopsBeating() {
        heartbeats.live = Set.of("a");
        ownership.refresh();
        ownership.start();
        ownership.close();
        clock.advance(LEASE);

        assertThat(heartbeats.left).isTrue();
        assertThat(heartbeats.beats.get()).isEqualTo(1);
    }

    @Test
    void stoppingWithoutLeavingIsWhatACrashLooksLike() {
        heartbeats.live = Set.of("a");
        ownership.refresh();
        ownership.start();
        ownership.stopBeating();
        clock.advance(LEASE);

        assertThat(heartbeats.left).isFalse();
        assertThat(heartbeats.beats.get()).isEqualTo(1);
    }

    @Test
    void anInstanceSaysItIsReadyOnlyWhenToldSo() {
        ownership.refresh();
        assertThat(heartbeats.lastReady).isFalse();

        ownership.ready();
        assertThat(heartbeats.lastReady).isTrue();
    }

    private static Set<String> partitions(int count) {
        Set<String> partitions = new TreeSet<>();
        for (int i = 0; i < count; i++) {
            partitions.add("tenant-" + i);
        }
        return partitions;
    }

    private static final class FakeHeartbeats implements Heartbeats {

        volatile Set<String> live = Set.of("a");

        final AtomicInteger beats = new AtomicInteger();

        final List<String> threads = new ArrayList<>();

        volatile boolean lastReady;

        volatile boolean left;

        @Override
        public Set<String> beat(boolean ready) {
            synchronized (threads) {
                threads.add(Thread.currentThread().getName().equals("main") ? "main"
                        : Thread.currentThread().getName());
            }
            lastReady = ready;
            beats.incrementAndGet();
            return live;
        }

        @Override
        public void leave() {
            left = true;
        }
    }
}
