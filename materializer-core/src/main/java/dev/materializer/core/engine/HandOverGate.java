package dev.materializer.core.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.stream.ForwardingStreamListener;
import dev.materializer.core.stream.StreamListener;

/**
 * Visible for testing: lets a test hold the hand-over of a collection's events, as a stream that lags
 * would, so it can drive "the change is committed but the engine has not heard it yet" exactly. Every
 * event of every stream passes it on the stream's thread, before routing (source streams) or before
 * the catalog reads it (the views stream); with no hold set that is one map look-up.
 *
 * <p>Threads: {@link #hold} from the test's thread; {@link #pass} on the streams' threads.
 */
final class HandOverGate {

    private final Map<String, Hold> holds = new ConcurrentHashMap<>();

    /**
     * Holds the next events of a collection on its stream's thread until {@link Hold#release()}.
     * Visible for testing.
     */
    Hold hold(String collection) {
        Hold hold = new Hold(collection);
        holds.put(collection, hold);
        return hold;
    }

    /** On a stream's thread: returns once no hold of the collection is set. */
    void pass(String collection) {
        Hold hold = holds.get(collection);
        if (hold != null) {
            hold.await();
        }
    }

    /** The engine's routing, with every event passing the gate first. */
    SourceFeed.Routing around(SourceFeed.Routing routing) {
        return (collection, change) -> {
            pass(collection);
            return routing.route(collection, change);
        };
    }

    /** A stream's listener, with every event passing the gate first. */
    StreamListener around(StreamListener listener) {
        return new ForwardingStreamListener(listener) {
            @Override
            public void onChange(String collection, SourceChange change) {
                pass(collection);
                super.onChange(collection, change);
            }
        };
    }

    /** A hold of one collection's hand-over; closing it releases it. */
    final class Hold implements AutoCloseable {

        private final String collection;

        private final CountDownLatch released = new CountDownLatch(1);

        private final CountDownLatch held = new CountDownLatch(1);

        private Hold(String collection) {
            this.collection = collection;
        }

        private void await() {
            held.countDown();
            try {
                released.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        /**
         * Waits until the stream holds an event here.
         * @return false when none came within the timeout
         */
        boolean awaitHeld(long timeout, TimeUnit unit) throws InterruptedException {
            return held.await(timeout, unit);
        }

        /** Lets the held event, and every later one, through. */
        void release() {
            holds.remove(collection, this);
            released.countDown();
        }

        @Override
        public void close() {
            release();
        }
    }
}
