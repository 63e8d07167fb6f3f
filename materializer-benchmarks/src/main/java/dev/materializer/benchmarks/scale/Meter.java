package dev.materializer.benchmarks.scale;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * What the JVM tells about its own costs: process CPU (every thread: the engine, the driver and the
 * in-process server), the CPU of the calling thread, heap in use after full collections, and the
 * machine's load average.
 */
public final class Meter {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private Meter() {
    }

    /** CPU time of the whole process, in nanoseconds. */
    public static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** CPU time of the calling thread, in nanoseconds. */
    public static long threadCpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** Bytes the calling thread has allocated so far, or -1 when the JVM does not say. */
    public static long threadAllocatedBytes() {
        if (THREADS instanceof com.sun.management.ThreadMXBean hotspot && hotspot.isThreadAllocatedMemoryEnabled()) {
            return hotspot.getThreadAllocatedBytes(Thread.currentThread().getId());
        }
        return -1;
    }

    /** Heap in use after a few full collections, the driver's idle buffers dropped first. */
    public static long heapAfterGc() {
        DriverBuffers.dropIdle();
        long used = Long.MAX_VALUE;
        for (int round = 0; round < 4; round++) {
            System.gc();
            sleep(150);
            used = Math.min(used, MEMORY.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** The first three fields of /proc/loadavg (1, 5 and 15 minutes), or "unknown". */
    public static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return String.join(" ", List.of(fields).subList(0, Math.min(3, fields.length)));
        }
        catch (IOException | RuntimeException ex) {
            return "unknown";
        }
    }

    /** "2 CPU(s), AMD EPYC; OpenJDK 64-Bit Server VM 17.0.15+6, max heap 6028 MiB; 2026-12-01": what a report ran on, and when. */
    public static String machine() {
        Runtime runtime = Runtime.getRuntime();
        return runtime.availableProcessors() + " CPU(s), " + cpuModel() + "; " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version") + ", max heap " + runtime.maxMemory() / (1024 * 1024)
                + " MiB; " + LocalDate.now();
    }

    /** The CPU model of the machine, from /proc/cpuinfo, or "unknown". */
    public static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // fall through
        }
        return "unknown";
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
