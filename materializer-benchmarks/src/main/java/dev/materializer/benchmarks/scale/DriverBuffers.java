package dev.materializer.benchmarks.scale;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.Map;

/**
 * Measurement hygiene for heap readings: the driver keeps the heap buffers of past messages in a
 * JVM-wide pool ({@code PowerOfTwoBufferPool.DEFAULT}) for a minute after their last use, in
 * power-of-two sizes up to 16 MiB, so what it holds at one reading and not the next depends on the
 * sizes of recent replies, not on the engine. Before each reading the idle buffers are dropped
 * (a buffer asked for later is allocated anew, as after a minute of idleness). Reaches into the
 * driver's internals by reflection; when they change, {@link #dropIdle()} does nothing and says so.
 */
final class DriverBuffers {

    private static volatile boolean warned;

    private DriverBuffers() {
    }

    /** Drops the driver's idle pooled buffers; false when the pool could not be reached. */
    static boolean dropIdle() {
        try {
            Class<?> poolClass = Class.forName("com.mongodb.internal.connection.PowerOfTwoBufferPool");
            Object pool = poolClass.getField("DEFAULT").get(null);
            Field mapField = poolClass.getDeclaredField("powerOfTwoToPoolMap");
            mapField.setAccessible(true);
            for (Object bySize : ((Map<?, ?>) mapField.get(pool)).values()) {
                Field available = bySize.getClass().getDeclaredField("available");
                available.setAccessible(true);
                ((Collection<?>) available.get(bySize)).clear();
            }
            return true;
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            if (!warned) {
                warned = true;
                System.err.println("the driver's buffer pool could not be emptied before heap readings: " + ex);
            }
            return false;
        }
    }
}
