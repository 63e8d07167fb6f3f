package dev.materializer.benchmarks.scale;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.management.ObjectName;

/**
 * Idle heap per view: the heap in use (after full collections) with the engine running idle over V
 * views, minus the heap before it started (the server's copy of the view documents is in the same
 * JVM and is there in both), minus what an engine with no view adds, divided by V.
 *
 * <p>With {@code -Dscale.histograms=DIR} it also writes the JVM's class histogram (live objects)
 * before and after, {@code DIR/heap-<views>-before.txt} and {@code -after.txt}, to see what a view
 * costs by class.
 */
final class IdleHeap {

    record Result(int views, long engineBytes, long fixedBytes, double bytesPerView) {
    }

    private IdleHeap() {
    }

    /** The heap before the engine starts. */
    static long before(int views) {
        long used = Meter.heapAfterGc();
        histogram(views, "before");
        return used;
    }

    /** The heap with the engine idle, and what it means per view. */
    static Result after(long before, int views, long fixedBytes) {
        long engine = Meter.heapAfterGc() - before;
        histogram(views, "after");
        double perView = views == 0 ? 0 : (double) (engine - fixedBytes) / views;
        return new Result(views, engine, fixedBytes, perView);
    }

    private static void histogram(int views, String when) {
        String directory = System.getProperty("scale.histograms");
        if (directory == null || directory.isBlank()) {
            return;
        }
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            Path file = Path.of(directory, "heap-" + views + "-" + when + ".txt");
            Files.createDirectories(file.getParent());
            Files.writeString(file, String.valueOf(text));
        }
        catch (IOException | javax.management.JMException | RuntimeException ex) {
            System.err.println("no class histogram: " + ex);
        }
    }
}
