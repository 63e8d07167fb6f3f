package dev.materializer.benchmarks.scale;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/** Reads a count (the engine's tasks in flight) every millisecond on a daemon, and keeps its maximum. */
final class InFlightSampler implements AutoCloseable {

    private final AtomicInteger max = new AtomicInteger();

    private final IntSupplier count;

    private final Thread thread;

    private volatile boolean closed;

    InFlightSampler(IntSupplier count) {
        this.count = count;
        this.thread = new Thread(() -> {
            while (!closed) {
                note();
                LockSupport.parkNanos(1_000_000);
            }
        }, "scale-report-in-flight-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /** Reads the count now too (the caller knows a moment worth reading). */
    int note() {
        int now = count.getAsInt();
        max.accumulateAndGet(now, Math::max);
        return now;
    }

    int max() {
        return max.get();
    }

    @Override
    public void close() {
        closed = true;
        note();
    }
}
