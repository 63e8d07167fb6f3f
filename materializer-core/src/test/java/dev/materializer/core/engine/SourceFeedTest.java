package dev.materializer.core.engine;

import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.materializer.core.cluster.OwnedPartitions;
import dev.materializer.core.cluster.Rendezvous;
import dev.materializer.core.pass.DirtySources;
import dev.materializer.core.pass.PartitionLanes;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.stream.Checkpoint;
import dev.materializer.core.stream.CheckpointStore;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.write.StatusStore;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The feed's part of the checkpoint invariant, alone: what an event marks, also when its routing
 * fails, what an open catches up, and what a checkpoint answers for while ownership moves. The
 * scheduler is real; streams, ownership and passes are stood in for, and time moves by hand.
 */
@MongoTest(MongoKind.IN_PROCESS)
class SourceFeedTest {

    private static final Duration DEBOUNCE = Duration.ofMillis(100);

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static final BsonDocument TOKEN = BsonDocument.parse("{_data: 'position'}");

    private final ManualClock clock = new ManualClock();

    private final PartitionLanes lanes = new PartitionLanes(2);

    private final ViewRegistry registry = new ViewRegistry("_part");

    /** What each pass took, by partition. */
    private final Map<String, List<DirtySources>> passes = new ConcurrentHashMap<>();

    private final RecordingListener listener = new RecordingListener();

    /** The scheduler's passes: record what they took, and leave it when the partition is not owned, as PassExecution does. */
    private Predicate<String> passOwns = partition -> true;

    /** Holds every pass at its start while closed (a catch-up enters its lane at once, not after a debounce). */
    private volatile CountDownLatch passesHeld = new CountDownLatch(0);

    private final PassScheduler scheduler = new PassScheduler(clock, DEBOUNCE, Duration.ofSeconds(1),
            Duration.ofMillis(200), 4, lanes, (partition, dirty) -> {
                awaitUninterruptibly(passesHeld);
                if (passOwns.test(partition)) {
                    passes.computeIfAbsent(partition, key -> Collections.synchronizedList(new ArrayList<>())).add(dirty);
                }
                return new DirtySources();
            });

    @AfterEach
    void closeLanes() {
        passesHeld.countDown();
        lanes.close();
    }

    private SourceFeed feed(TestMongo mongo, SourceFeed.Routing routing, Predicate<String> owns,
            Supplier<Set<String>> live) {
        MaterializerOptions options = MaterializerOptions.builder().instanceId("me").clock(clock).build();
        return new SourceFeed(mongo.database(), registry, routing, scheduler,
                new CheckpointStore(mongo.database(), options.checkpointsCollection(), "me", live), clock, options,
                listener, new StatusStore(mongo.database(), EngineSettings.write(options)), owns, live,
                new HeardChanges(HeardChanges.CoveredLookup.of(registry)), Duration.ZERO);
    }

    private SourceFeed feed(TestMongo mongo, Predicate<String> owns, Supplier<Set<String>> live) {
        return feed(mongo, SourceFeed.Routing.of(new PartitionRouter("_part", Map.of()), registry), owns, live);
    }

    /** A view of a partition that has run before (it has a generation), reading the sources. */
    private void view(String id, String partition, String... sources) {
        registry.put(new ViewDefinition(new BsonString(id), partition, List.of(sources),
                List.of(BsonDocument.parse("{$match: {}}")), "target-" + id, Map.of(), "fp-" + id), Generation.of(1));
    }

    private static SourceChange insert(String partition) {
        return new SourceChange(SourceChange.Operation.INSERT,
                new BsonDocument("_id", new BsonString("o1")).append("_part", new BsonString(partition)), null,
                new BsonString("o1"), null, new BsonTimestamp(1, 1), null);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A beat gives this instance a partition: its take-over is marked (its pass held at its start), then
     * the new live set is published, in that order as PartitionOwnership and OwnedPartitions do.
     */
    private void takeOverHeld(String gained, AtomicReference<Set<String>> live, Set<String> after) {
        passesHeld = new CountDownLatch(1);
        DirtySources takeOver = new DirtySources();
        takeOver.addAll("orders");
        scheduler.catchUp(gained, takeOver);
        live.set(after);
    }

    private void runPasses() throws InterruptedException {
        clock.advance(DEBOUNCE);
        assertThat(lanes.awaitIdle(WAIT)).isTrue();
    }

    @Test
    void anEventWhoseRoutingFailsMarksEveryViewOfEveryOwnedPartitionReadingTheSource(TestMongo mongo)
            throws InterruptedException {
        view("rev-p1", "p1", "orders");
        view("cust-p2", "p2", "orders", "customers");
        view("rev-p3", "p3", "orders");
        view("cust-p4", "p4", "customers");
        AtomicInteger routed = new AtomicInteger();
        SourceFeed feed = feed(mongo, (collection, change) -> {
            routed.incrementAndGet();
            throw new IllegalStateException("routing broke");
        }, partition -> !partition.equals("p3"), Set::of);

        feed.onChange("orders", insert("p1"));

        assertThat(routed).hasValue(1);
        assertThat(listener.changes).as("the change is still counted").hasValue(1);
        assertThat(listener.broadcasts).as("a routing failure is not a broadcast: it has its own log").isEmpty();
        assertThat(scheduler.pendingPartitions("orders")).as("owned readers of orders, wherever the event was")
            .containsExactlyInAnyOrder("p1", "p2");
        assertThat(scheduler.pendingPartitions("customers")).as("a source the event is not of").isEmpty();

        // The same cause again (logged once, counted quietly) marks again: fail safe every time.
        runPasses();
        feed.onChange("orders", insert("p2"));
        assertThat(scheduler.pendingPartitions("orders")).containsExactlyInAnyOrder("p1", "p2");
        runPasses();

        assertThat(passes.keySet()).containsExactlyInAnyOrder("p1", "p2");
        assertThat(passes.get("p1")).hasSize(2).allMatch(dirty -> dirty.affects("rev-p1", List.of("orders")));
        assertThat(passes.get("p2")).hasSize(2).allMatch(dirty -> dirty.affects("cust-p2", List.of("orders", "customers")));
    }

    @Test
    void anEventThatRoutesMarksOnlyTheOwnedPartitionsItCanAffect(TestMongo mongo) throws InterruptedException {
        view("rev-p1", "p1", "orders");
        view("rev-p2", "p2", "orders");
        view("rev-p3", "p3", "orders");
        SourceFeed feed = feed(mongo, partition -> !partition.equals("p3"), Set::of);

        feed.onChange("orders", insert("p1"));
        feed.onChange("orders", insert("p3"));

        assertThat(scheduler.pendingPartitions("orders")).containsExactly("p1");
    }

    @Test
    void anEventThatNamesNoPartitionIsToldToTheListenerOnceWithItsSource(TestMongo mongo) {
        view("rev-p1", "p1", "orders");
        view("rev-p2", "p2", "orders");
        view("cust-p3", "p3", "customers");
        SourceFeed feed = feed(mongo, partition -> true, Set::of);

        feed.onChange("orders", insert("p1"));
        assertThat(listener.broadcasts).as("an insert names its partition").isEmpty();
        feed.onChange("orders", new SourceChange(SourceChange.Operation.DELETE, null, null, new BsonString("o1"), null,
                new BsonTimestamp(1, 2), null));

        assertThat(listener.broadcasts).as("a delete without a pre-image, whatever its narrowing then marks")
            .containsExactly("orders");
    }

    @Test
    void aFirstOpenHandedACheckpointCatchesUpWhatItDoesNotAnswerForAlsoAfterAFailedOpen(TestMongo mongo) {
        String writer = "node-w";
        Set<String> live = Set.of(writer, "me");
        // p-pending: pending in the checkpoint; p-theirs: the writer did not own it; p-answered: it did, nothing pending.
        String answered = partitionOwnedBy(writer, live, 0);
        String theirs = partitionOwnedBy("me", live, 0);
        view("v-pending", "p-pending", "orders");
        view("v-theirs", theirs, "orders");
        view("v-answered", answered, "orders");
        SourceFeed feed = feed(mongo, partition -> true, () -> live);
        Checkpoint adopted = new Checkpoint(TOKEN, Set.of("p-pending"), writer, live);
        // Catch-ups do not wait for a debounce: held back here, they stay pending for the assertion.
        scheduler.stopIntake();

        // The stream's first cursor failed before it opened: its next open resumes from the same checkpoint.
        feed.onOpened("orders", true, true, adopted);

        assertThat(scheduler.pendingPartitions("orders")).as("pending, and not answered for; the rest is")
            .containsExactlyInAnyOrder("p-pending", theirs);
    }

    @Test
    void aPartitionPendingInItsOwnCheckpointIsAnsweredForByAnotherInstancesCheckpointAtOrAfterIt(TestMongo mongo) {
        // This instance stopped with p-applied and p-open pending; node-b, alone then, took both over and
        // saved later: p-applied done, p-open still pending. This instance restarts under its own id.
        view("v-applied", "p-applied", "orders");
        view("v-open", "p-open", "orders");
        view("v-quiet", "p-quiet", "orders");
        SourceFeed feed = feed(mongo, partition -> true, () -> Set.of("me"));
        Checkpoint theirs = new Checkpoint(TOKEN, Set.of("p-open"), "node-b", Set.of("node-b"));
        Checkpoint own = new Checkpoint(TOKEN, Set.of("p-applied", "p-open"), "me", Set.of("me"), null, null,
                List.of(theirs));
        scheduler.stopIntake();

        feed.onOpened("orders", true, false, own);

        assertThat(scheduler.pendingPartitions("orders"))
            .as("what the later checkpoint's owner applied is not run again; what is pending in both is")
            .containsExactly("p-open");
    }

    @Test
    void aResumedReopeningCatchesUpNothing(TestMongo mongo) {
        view("v1", "p1", "orders");
        SourceFeed feed = feed(mongo, partition -> true, Set::of);
        scheduler.stopIntake();

        feed.onOpened("orders", true, true, Checkpoint.NONE);

        assertThat(scheduler.pendingPartitions("orders")).as("every event before its own position was handed over").isEmpty();
    }

    @Test
    void aCheckpointNeverAnswersForAPartitionWhosePassLeftItsMarksToANewOwnerWhileTheCheckpointWasTaken(TestMongo mongo)
            throws InterruptedException {
        Set<String> before = Set.of("me", "other");
        Set<String> after = Set.of("me", "other", "newcomer");
        String moving = partitionMoving(before, after);
        view("rev", moving, "orders");
        AtomicReference<Set<String>> live = new AtomicReference<>(before);
        Predicate<String> owns = partition -> OwnedPartitions.owner("me", partition, live.get());
        passOwns = owns;
        // The stream thread reads the live set; then, before it reads the pending partitions, a beat
        // publishes the newcomer and the partition's pass starts under it and leaves its marks.
        AtomicInteger reads = new AtomicInteger();
        Supplier<Set<String>> liveRead = () -> {
            Set<String> seen = live.get();
            if (reads.incrementAndGet() == 1) {
                live.set(after);
                try {
                    runPasses();
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            }
            return seen;
        };
        SourceFeed feed = feed(mongo, owns, liveRead);
        feed.onChange("orders", insert(moving));
        assertThat(scheduler.pendingPartitions("orders")).containsExactly(moving);

        Checkpoint checkpoint = feed.checkpointAt("orders", TOKEN);

        assertThat(passes).as("the pass ran under the new live set and applied nothing").isEmpty();
        assertThat(scheduler.pendingPartitions("orders")).isEmpty();
        // The invariant: a partition the writer owned among the checkpoint's live set is applied or pending.
        boolean answers = OwnedPartitions.owner("me", moving, checkpoint.live());
        assertThat(!answers || checkpoint.pending().contains(moving))
            .as("checkpoint %s answers for %s, whose change no pass applied", checkpoint, moving).isTrue();
    }

    @Test
    void aCheckpointWhoseLiveSetNeverHoldsStillIsNotTakenAndTheStreamKeepsItsOlderOne(TestMongo mongo) {
        AtomicInteger beats = new AtomicInteger();
        SourceFeed feed = feed(mongo, partition -> true, () -> Set.of("me", "other-" + beats.incrementAndGet()));

        // CollectionStream logs it and saves nothing this time: an older token only replays events.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> feed.checkpointAt("orders", TOKEN))
            .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aQuietStreamSavesEarlyOnceTheLiveSetMovedAndThePassesOfTheMoveAreDone(TestMongo mongo)
            throws InterruptedException {
        Set<String> before = Set.of("me", "other");
        Set<String> after = Set.of("me");
        String gained = partitionOwnedBy("other", before, 0);
        view("rev", gained, "orders");
        AtomicReference<Set<String>> live = new AtomicReference<>(Set.of());
        SourceFeed feed = feed(mongo, partition -> OwnedPartitions.owner("me", partition, live.get()), live::get);

        assertThat(feed.checkpointWanted("orders")).as("before the first beat the live set is unknown").isFalse();
        live.set(before);
        assertThat(feed.checkpointWanted("orders")).as("no checkpoint yet, nothing pending").isTrue();
        feed.checkpointAt("orders", TOKEN);
        assertThat(feed.checkpointWanted("orders")).as("the last checkpoint has this live set").isFalse();

        // A beat gives this instance the other's partition, whose take-over is marked before the live set is published
        takeOverHeld(gained, live, after);
        assertThat(feed.checkpointWanted("orders")).as("the take-over's pass has not ended: it would be listed pending")
            .isFalse();
        passesHeld.countDown();
        runPasses();
        assertThat(feed.checkpointWanted("orders")).as("the move is done: the checkpoint answers for it now").isTrue();
        Checkpoint early = feed.checkpointAt("orders", TOKEN);
        assertThat(early.live()).isEqualTo(after);
        assertThat(early.pending()).isEmpty();
        assertThat(feed.checkpointWanted("orders")).isFalse();
    }

    @Test
    void aQuietStreamSavesEarlyOnceThePartitionsItsLastCheckpointListedPendingAreDone(TestMongo mongo)
            throws InterruptedException {
        Set<String> before = Set.of("me", "other");
        Set<String> after = Set.of("me");
        String gained = partitionOwnedBy("other", before, 0);
        view("rev", gained, "orders");
        AtomicReference<Set<String>> live = new AtomicReference<>(before);
        SourceFeed feed = feed(mongo, partition -> OwnedPartitions.owner("me", partition, live.get()), live::get);
        feed.checkpointAt("orders", TOKEN);

        // The take-over is marked, the live set published, and an interval's save comes while its pass waits:
        // that checkpoint records the new live set with the partition pending
        takeOverHeld(gained, live, after);
        Checkpoint duringTheTakeOver = feed.checkpointAt("orders", TOKEN);
        assertThat(duringTheTakeOver.live()).isEqualTo(after);
        assertThat(duringTheTakeOver.pending()).containsExactly(gained);
        assertThat(feed.checkpointWanted("orders")).as("its pass has not ended").isFalse();

        passesHeld.countDown();
        runPasses();
        assertThat(feed.checkpointWanted("orders"))
            .as("the live set is the one saved, but a save now answers for the partition the last one listed pending")
            .isTrue();
        assertThat(feed.checkpointAt("orders", TOKEN).pending()).isEmpty();
        assertThat(feed.checkpointWanted("orders")).as("nothing more to answer for").isFalse();
    }

    /** The first partition "p<i>" the instance owns among the live set, from the i-th on. */
    private static String partitionOwnedBy(String instance, Set<String> live, int from) {
        for (int i = from; i < 1000; i++) {
            if (Rendezvous.owner("p" + i, live).equals(instance)) {
                return "p" + i;
            }
        }
        throw new AssertionError("no partition for " + instance);
    }

    /** A partition "me" owns among {@code before} and the newcomer among {@code after}. */
    private static String partitionMoving(Set<String> before, Set<String> after) {
        for (int i = 0; i < 1000; i++) {
            String partition = "p" + i;
            if (Rendezvous.owner(partition, before).equals("me") && Rendezvous.owner(partition, after).equals("newcomer")) {
                return partition;
            }
        }
        throw new AssertionError("no partition moves from me to the newcomer");
    }

    /** Counts the changes the feed reports. */
    private static final class RecordingListener implements MaterializerListener {

        final AtomicInteger changes = new AtomicInteger();

        final List<String> broadcasts = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onBroadcastEvent(String source) {
            broadcasts.add(source);
        }

        @Override
        public void onChange(String source, Duration lag) {
            changes.incrementAndGet();
        }
    }
}
