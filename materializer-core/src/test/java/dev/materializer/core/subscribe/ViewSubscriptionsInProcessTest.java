package dev.materializer.core.subscribe;

import dev.materializer.core.SnapshotReason;
import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewRowsSnapshot;
import dev.materializer.core.ViewSubscription;
import dev.materializer.core.stream.Checkpoint;
import dev.materializer.core.stream.StreamListener;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.subscribe.HandWrittenVersions.ids;
import static dev.materializer.core.subscribe.HandWrittenVersions.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Subscriptions over versions written by hand as the writer writes them, with the views stream's
 * events handed over when the test says: which flips the stream shows, and when.
 */
@MongoTest(MongoKind.IN_PROCESS)
class ViewSubscriptionsInProcessTest {

    /** The catalog's place in the views stream: it hears nothing here. */
    private static final StreamListener CATALOG = new StreamListener() {
        @Override
        public void onChange(String collection, SourceChange change) {
        }

        @Override
        public void onOpened(String collection, boolean resumed, boolean reopened, Checkpoint from) {
        }

        @Override
        public void onEnded(String collection, String reason, boolean historyLost) {
        }

        @Override
        public Checkpoint checkpointAt(String collection, BsonDocument token) {
            return Checkpoint.at(token, java.util.Set.of(), java.util.Set.of());
        }
    };

    @Test
    void aSubscriberFromNowGetsTheRowsThenOneWholeDeltaPerFlipPairingAChangedRow(TestMongo mongo) throws Exception {
        HandWrittenVersions view = new HandWrittenVersions(mongo.database(), "revenue", "acme", "revenue");
        view.flip(rows("apple", 6, "pear", 5));
        try (ViewSubscriptions hub = new ViewSubscriptions(mongo.database(), view.options)) {
            StreamListener stream = hub.around(CATALOG);
            Recorder recorder = new Recorder();
            ViewSubscription subscription = hub.subscribe("acme", "revenue", null, recorder);

            ViewRowsSnapshot start = recorder.next(ViewRowsSnapshot.class);
            assertThat(start.reason()).isEqualTo(SnapshotReason.STARTED);
            assertThat(start.generation()).isEqualTo(1);
            assertThat(ids(start.rows())).containsExactlyInAnyOrder("apple", "pear");

            view.flip(rows("apple", 7, "pear", null, "fig", 3));
            view.heard(stream);
            ViewDelta delta = recorder.next(ViewDelta.class);
            assertThat(delta.fromGeneration()).isEqualTo(1);
            assertThat(delta.toGeneration()).isEqualTo(2);
            assertThat(ids(delta.added())).containsExactly("fig");
            assertThat(ids(delta.removed())).containsExactly("pear");
            assertThat(delta.changed()).singleElement().satisfies(change -> {
                assertThat(change.before().document().getInt32("value").getValue()).isEqualTo(6);
                assertThat(change.after().document().getInt32("value").getValue()).isEqualTo(7);
            });
            assertThat(recorder.values()).isEqualTo(view.rowsAt(2));
            assertThat(subscription.generation()).isEqualTo(2);

            // A status written without a flip hands nothing over
            view.heard(stream);
            await().until(hub::idle);
            assertThat(recorder.quiet()).isTrue();
        }
    }

    @Test
    void flipsTheStreamShowsAsOneComeAsOneDeltaEachInOrder(TestMongo mongo) throws Exception {
        HandWrittenVersions view = new HandWrittenVersions(mongo.database(), "revenue", "acme", "revenue");
        view.flip(rows("apple", 6));
        try (ViewSubscriptions hub = new ViewSubscriptions(mongo.database(), view.options)) {
            StreamListener stream = hub.around(CATALOG);
            Recorder recorder = new Recorder();
            hub.subscribe("acme", "revenue", null, recorder);
            recorder.next(ViewRowsSnapshot.class);

            view.flip(rows("fig", 1));
            view.flip(rows("fig", null, "apple", 8));
            view.flip(rows("kiwi", 2));
            view.heard(stream);

            ViewDelta first = recorder.next(ViewDelta.class);
            assertThat(first.fromGeneration()).isEqualTo(1);
            assertThat(first.toGeneration()).isEqualTo(2);
            assertThat(ids(first.added())).containsExactly("fig");
            ViewDelta second = recorder.next(ViewDelta.class);
            assertThat(second.fromGeneration()).isEqualTo(2);
            assertThat(second.toGeneration()).isEqualTo(3);
            assertThat(ids(second.removed())).as("opened and closed between: in each delta").containsExactly("fig");
            assertThat(second.changed()).hasSize(1);
            ViewDelta third = recorder.next(ViewDelta.class);
            assertThat(third.toGeneration()).isEqualTo(4);
            assertThat(recorder.values()).isEqualTo(view.rowsAt(4)).isEqualTo(rows("apple", 8, "kiwi", 2));
        }
    }

    @Test
    void aResumeWithinTheGraceGetsEveryDeltaSinceElseASnapshotSayingSo(TestMongo mongo) throws Exception {
        HandWrittenVersions view = new HandWrittenVersions(mongo.database(), "revenue", "acme", "revenue");
        view.flip(rows("apple", 6, "pear", 5));
        view.flip(rows("pear", 4));
        view.flip(rows("apple", null, "fig", 1));
        try (ViewSubscriptions hub = new ViewSubscriptions(mongo.database(), view.options)) {
            Recorder resumed = new Recorder();
            resumed.onSnapshot(new ViewRowsSnapshot("acme", "revenue", 1, new java.util.ArrayList<>(
                    new VersionReads(mongo.database(), "_part", new RowKeys())
                        .rowsOf("revenue", "acme", dev.materializer.core.Generation.of(1))),
                    SnapshotReason.STARTED));
            resumed.next();
            hub.subscribe("acme", "revenue", 1L, resumed);
            assertThat(resumed.next()).isEqualTo(1L);
            assertThat(resumed.next(ViewDelta.class).toGeneration()).isEqualTo(2);
            assertThat(resumed.next(ViewDelta.class).toGeneration()).isEqualTo(3);
            assertThat(resumed.values()).isEqualTo(view.rowsAt(3));

            Recorder current = new Recorder();
            hub.subscribe("acme", "revenue", 3L, current);
            assertThat(current.next()).as("already current: resumed, nothing to hand").isEqualTo(3L);

            Recorder ahead = new Recorder();
            hub.subscribe("acme", "revenue", 99L, ahead);
            ViewRowsSnapshot snapshot = ahead.next(ViewRowsSnapshot.class);
            assertThat(snapshot.reason()).isEqualTo(SnapshotReason.NOT_RESUMABLE);
            assertThat(snapshot.generation()).isEqualTo(3);
        }
    }

    @Test
    void aViewWrittenAnewInItsPlaceBetweenTwoEventsIsASnapshotNotADelta(TestMongo mongo) throws Exception {
        HandWrittenVersions view = new HandWrittenVersions(mongo.database(), "revenue", "acme", "revenue");
        view.flip(rows("apple", 6, "pear", 5));
        try (ViewSubscriptions hub = new ViewSubscriptions(mongo.database(), view.options)) {
            StreamListener stream = hub.around(CATALOG);
            Recorder recorder = new Recorder();
            hub.subscribe("acme", "revenue", null, recorder);
            recorder.next(ViewRowsSnapshot.class);

            // The view left and came back: its first pass there removed every version below its number
            view.rewrite(rows("kiwi", 1));
            view.heard(stream);
            ViewRowsSnapshot snapshot = recorder.next(ViewRowsSnapshot.class);
            assertThat(snapshot.reason()).isEqualTo(SnapshotReason.REWRITTEN);
            assertThat(recorder.values()).isEqualTo(rows("kiwi", 1));

            // Deleted: readers read nothing
            view.delete();
            view.heard(stream);
            ViewRowsSnapshot gone = recorder.next(ViewRowsSnapshot.class);
            assertThat(gone.generation()).isZero();
            assertThat(gone.rows()).isEmpty();
        }
    }

    @Test
    void aSlowSubscriberNeverHoldsTheOthersUpAndIsHandedTheRowsOnceReady(TestMongo mongo) throws Exception {
        HandWrittenVersions view = new HandWrittenVersions(mongo.database(), "revenue", "acme", "revenue");
        view.flip(rows("apple", 1));
        try (ViewSubscriptions hub = new ViewSubscriptions(mongo.database(), view.options, 2)) {
            StreamListener stream = hub.around(CATALOG);
            Recorder slow = new Recorder();
            slow.holdNext();
            Recorder quick = new Recorder();
            hub.subscribe("acme", "revenue", null, slow);
            hub.subscribe("acme", "revenue", null, quick);
            slow.next(ViewRowsSnapshot.class);
            quick.next(ViewRowsSnapshot.class);

            for (int value = 2; value <= 6; value++) {
                view.flip(rows("apple", value));
                view.heard(stream);
                assertThat(quick.next(ViewDelta.class).toGeneration()).isEqualTo(value);
            }
            await().until(hub::idle);
            slow.release();
            ViewRowsSnapshot caughtUp = slow.next(ViewRowsSnapshot.class);
            assertThat(caughtUp.reason()).isEqualTo(SnapshotReason.FELL_BEHIND);
            assertThat(caughtUp.generation()).isEqualTo(6);
            assertThat(slow.values()).isEqualTo(rows("apple", 6));

            view.flip(rows("apple", 7));
            view.heard(stream);
            assertThat(slow.next(ViewDelta.class).fromGeneration()).isEqualTo(6);
            assertThat(slow.values()).isEqualTo(rows("apple", 7));
        }
    }

    @Test
    void closingFreesEverythingAndAViewNobodyFollowsCostsNothing(TestMongo mongo) throws Exception {
        HandWrittenVersions view = new HandWrittenVersions(mongo.database(), "revenue", "acme", "revenue");
        view.flip(rows("apple", 1));
        try (ViewSubscriptions hub = new ViewSubscriptions(mongo.database(), view.options)) {
            StreamListener stream = hub.around(CATALOG);
            view.flip(rows("apple", 2));
            view.heard(stream);
            assertThat(hub.workerThreads()).as("nobody listens: no work").isZero();

            Recorder recorder = new Recorder();
            ViewSubscription subscription = hub.subscribe("acme", "revenue", null, recorder);
            recorder.next(ViewRowsSnapshot.class);
            assertThat(hub.followed()).isEqualTo(1);
            subscription.close();
            assertThat(hub.followed()).isZero();
            await().until(((Subscription) subscription)::ended);

            view.flip(rows("apple", 3));
            view.heard(stream);
            await().until(hub::idle);
            assertThat(recorder.quiet()).as("no call after the close").isTrue();
        }
    }

    @Test
    void theEnginesCloseNeverWaitsForASubscriberThatIgnoresItsInterrupt(TestMongo mongo) throws Exception {
        HandWrittenVersions view = new HandWrittenVersions(mongo.database(), "revenue", "acme", "revenue");
        view.flip(rows("apple", 1));
        java.util.concurrent.CountDownLatch inCall = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        ViewSubscriptions hub = new ViewSubscriptions(mongo.database(), view.options);
        hub.subscribe("acme", "revenue", null, new dev.materializer.core.LiveRows() {
            @Override
            public void onSnapshot(ViewRowsSnapshot snapshot) {
                inCall.countDown();
                while (never.getCount() > 0) {
                    try {
                        never.await();
                    }
                    catch (InterruptedException ignored) {
                        // A subscriber that does not stop when told
                    }
                }
            }
        });
        assertThat(inCall.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), hub::close);
        assertThat(hub.followed()).isZero();
        never.countDown();
    }
}
