package dev.materializer.benchmarks.scale;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time, and the bytes allocated, of the engine's own threads (named {@code materializer-*}:
 * start, streams, timer, heartbeat, passes). A daemon samples every thread's CPU time and allocated
 * bytes every 50 ms and keeps the last seen values, so a thread that ends between two reads (the
 * start thread, a pass thread let go after 30 s idle) loses at most 50 ms of either. The driver's
 * and the server's threads are left out: the process CPU counts them. The driver's calls of the
 * engine (encoding commands, decoding replies) run on the engine's threads and are counted.
 */
public final class EngineThreadsCpu implements AutoCloseable {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final String PREFIX = "materializer-";

    private final Map<Long, Long> lastSeen = new HashMap<>();

    private final Map<Long, Long> lastAllocated = new HashMap<>();

    private final Thread sampler;

    private volatile boolean closed;

    public EngineThreadsCpu() {
        sample();
        sampler = new Thread(() -> {
            while (!closed) {
                Meter.sleep(50);
                sample();
            }
        }, "scale-report-cpu-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private synchronized void sample() {
        long[] ids = THREADS.getAllThreadIds();
        ThreadInfo[] infos = THREADS.getThreadInfo(ids);
        for (int index = 0; index < ids.length; index++) {
            ThreadInfo info = infos[index];
            if (info == null || !info.getThreadName().startsWith(PREFIX)) {
                continue;
            }
            long cpu = THREADS.getThreadCpuTime(ids[index]);
            if (cpu >= 0) {
                lastSeen.merge(ids[index], cpu, Math::max);
            }
            long allocated = allocatedBytes(ids[index]);
            if (allocated >= 0) {
                lastAllocated.merge(ids[index], allocated, Math::max);
            }
        }
    }

    private static long allocatedBytes(long threadId) {
        if (THREADS instanceof com.sun.management.ThreadMXBean hotspot && hotspot.isThreadAllocatedMemoryEnabled()) {
            return hotspot.getThreadAllocatedBytes(threadId);
        }
        return -1;
    }

    /** The CPU time of every engine thread seen so far, ended threads included, in nanoseconds. */
    public synchronized long totalNanos() {
        sample();
        long total = 0;
        for (long cpu : lastSeen.values()) {
            total += cpu;
        }
        return total;
    }

    /**
     * The bytes every engine thread seen so far has allocated, ended threads included, or -1 when the
     * JVM does not count allocations per thread.
     */
    public synchronized long totalAllocatedBytes() {
        if (!(THREADS instanceof com.sun.management.ThreadMXBean hotspot && hotspot.isThreadAllocatedMemoryEnabled())) {
            return -1;
        }
        sample();
        long total = 0;
        for (long allocated : lastAllocated.values()) {
            total += allocated;
        }
        return total;
    }

    @Override
    public void close() {
        closed = true;
    }
}
