package dev.materializer.core.subscribe;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.materializer.core.LiveRows;
import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewRow;
import dev.materializer.core.ViewRowsSnapshot;

/** A subscriber that keeps the rows and hands each call to the test, in order; it can be held. */
final class Recorder extends LiveRows {

    static final Duration WAIT = Duration.ofSeconds(10);

    private final BlockingQueue<Object> calls = new LinkedBlockingQueue<>();

    private volatile CountDownLatch hold = new CountDownLatch(0);

    /** Holds the subscriber's thread in its next call until {@link #release()}. */
    void holdNext() {
        hold = new CountDownLatch(1);
    }

    void release() {
        hold.countDown();
    }

    private void waitIfHeld() {
        try {
            hold.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void onSnapshot(ViewRowsSnapshot snapshot) {
        super.onSnapshot(snapshot);
        calls.add(snapshot);
        waitIfHeld();
    }

    @Override
    public void onDelta(ViewDelta delta) {
        super.onDelta(delta);
        calls.add(delta);
        waitIfHeld();
    }

    @Override
    public void onResumed(long generation) {
        super.onResumed(generation);
        calls.add(generation);
    }

    /** The next call, or a failure when none comes within the wait. */
    Object next() throws InterruptedException {
        Object call = calls.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (call == null) {
            throw new AssertionError("no call of the subscriber within " + WAIT);
        }
        return call;
    }

    <T> T next(Class<T> type) throws InterruptedException {
        return type.cast(next());
    }

    boolean quiet() {
        return calls.isEmpty();
    }

    /** The rows held, by row id, with their value. */
    Map<String, Integer> values() {
        Map<String, Integer> values = new LinkedHashMap<>();
        for (ViewRow row : rows()) {
            values.put(row.id().asString().getValue(), row.document().getInt32("value").getValue());
        }
        return values;
    }
}
