package dev.materializer.core.subscribe;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewRowsSnapshot;
import dev.materializer.core.ViewSubscriber;
import dev.materializer.core.ViewSubscription;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscriber's queue and the thread that hands it what the queue holds. The engine's side only
 * offers: it never waits for a subscriber. A queue that is full drops what it holds and marks the
 * subscription behind; its thread then asks for a snapshot, which the hub reads once the subscriber
 * is ready for it, and the deltas after that snapshot follow.
 *
 * <p>Threads: {@link #offer} and {@link #join} on the hub's worker; the delivery on the
 * subscription's own thread; {@link #close} on any.
 */
final class Subscription implements ViewSubscription {

    private static final Logger log = LoggerFactory.getLogger(Subscription.class);

    private final String partition;

    private final String viewId;

    private final @Nullable Long resumeFrom;

    private final ViewSubscriber subscriber;

    private final BlockingQueue<Event> queue;

    private final Consumer<Subscription> wantsSnapshot;

    private final Consumer<Subscription> closed;

    private final Thread thread;

    /** Set by the worker once it handed the subscription its start: fan-outs reach it from then on. */
    private volatile boolean joined;

    /** Set when the queue overflowed, until the snapshot that follows is offered. */
    private volatile boolean behind;

    private volatile boolean closing;

    private volatile long generation;

    /** Held while the subscriber is called, so a close from elsewhere returns only once no call runs. */
    private final Object calling = new Object();

    /** What the queue holds: a snapshot, a delta, a resume, or the mark that the subscriber fell behind. */
    private sealed interface Event {
    }

    private record SnapshotEvent(ViewRowsSnapshot snapshot) implements Event {
    }

    private record DeltaEvent(ViewDelta delta) implements Event {
    }

    private record ResumedEvent(long generation) implements Event {
    }

    private record Behind() implements Event {
    }

    Subscription(String partition, String viewId, @Nullable Long resumeFrom, ViewSubscriber subscriber, int capacity,
            Consumer<Subscription> wantsSnapshot, Consumer<Subscription> closed, String threadName) {
        this.partition = partition;
        this.viewId = viewId;
        this.resumeFrom = resumeFrom;
        this.subscriber = subscriber;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.wantsSnapshot = wantsSnapshot;
        this.closed = closed;
        this.thread = new Thread(this::deliver, threadName);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    @Nullable Long resumeFrom() {
        return resumeFrom;
    }

    boolean joined() {
        return joined;
    }

    /** Whether fan-outs reach it: joined, not behind, not closed. */
    boolean following() {
        return joined && !behind && !closing;
    }

    void join() {
        joined = true;
    }

    void offer(ViewDelta delta) {
        put(new DeltaEvent(delta));
    }

    synchronized void offer(ViewRowsSnapshot snapshot) {
        // A snapshot ends a fall behind: what follows it starts from it
        behind = false;
        put(new SnapshotEvent(snapshot));
    }

    void offerResumed(long from) {
        put(new ResumedEvent(from));
    }

    private synchronized void put(Event event) {
        if (closing || behind) {
            return;
        }
        if (!queue.offer(event)) {
            // Full: what it holds is stale anyway; the subscriber gets the rows as they are when it is ready
            queue.clear();
            behind = true;
            queue.add(new Behind());
        }
    }

    private void deliver() {
        try {
            while (!closing) {
                Event event = queue.take();
                synchronized (calling) {
                    if (closing) {
                        return;
                    }
                    hand(event);
                }
            }
        }
        catch (InterruptedException ex) {
            // Closed
        }
    }

    private void hand(Event event) {
        try {
            // The generation moves before the subscriber is called: whoever it tells of the event (another
            // thread, say) already reads the generation the event brought
            if (event instanceof SnapshotEvent snapshot) {
                generation = snapshot.snapshot().generation();
                subscriber.onSnapshot(snapshot.snapshot());
            }
            else if (event instanceof DeltaEvent delta) {
                generation = delta.delta().toGeneration();
                subscriber.onDelta(delta.delta());
            }
            else if (event instanceof ResumedEvent resumed) {
                generation = resumed.generation();
                subscriber.onResumed(resumed.generation());
            }
            else {
                wantsSnapshot.accept(this);
            }
        }
        catch (RuntimeException ex) {
            log.warn("A subscriber of view {}/{} failed; the subscription goes on: {}", partition, viewId, ex.toString());
        }
    }

    @Override
    public String partition() {
        return partition;
    }

    @Override
    public String viewId() {
        return viewId;
    }

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public void close() {
        end(true);
    }

    /**
     * Ends the subscription.
     * @param waitForCall whether to wait for a call of the subscriber in progress; the engine's close
     *     does not, so a subscriber that ignores its interrupt never holds the engine up
     */
    void end(boolean waitForCall) {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            queue.clear();
        }
        if (Thread.currentThread() != thread) {
            thread.interrupt();
            if (waitForCall) {
                synchronized (calling) {
                    // Waits for a call in progress: none starts after this
                }
            }
        }
        closed.accept(this);
    }

    /** Whether its thread ended. */
    // Visible for testing
    boolean ended() {
        return !thread.isAlive();
    }

    @Override
    public String toString() {
        return "subscription of " + partition + "/" + viewId;
    }
}
