package dev.materializer.core;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;

import dev.materializer.core.stream.StreamListener;

/**
 * A measurement probe for the scale report, not part of the engine: it hands the report the
 * engine's own listener of the source streams, so events can be routed on the caller's thread
 * (and timed there) through exactly the path a stream thread takes: route, filter by watched
 * fields, mark with the scheduler.
 *
 * <p>It depends on no package-private type at compile time — only on the engine holding, in a
 * field of its own, a source-stream listener whose class is named {@code SourceFeed} — so a
 * rewrite of the internals does not break the build; it fails at run time, with the reason, and
 * the report prints that row as not measured. It also reads the engine's longest debounce, so the
 * report moves its clock past it whatever the engine makes of it.
 */
public final class ScaleProbe {

    private static final String FEED_CLASS = "SourceFeed";

    private static final String MAX_DELAY = "maxDelay";

    private ScaleProbe() {
    }

    /**
     * The engine's listener of its source streams.
     * @param engine a started or new engine
     * @return its source feed
     * @throws IllegalStateException when the engine holds no such field
     */
    public static StreamListener sourceFeed(ViewMaterializer engine) {
        for (Field field : ViewMaterializer.class.getDeclaredFields()) {
            if (StreamListener.class.isAssignableFrom(field.getType())
                    && field.getType().getSimpleName().equals(FEED_CLASS)) {
                try {
                    field.setAccessible(true);
                    return (StreamListener) field.get(engine);
                }
                catch (ReflectiveOperationException | RuntimeException ex) {
                    throw new IllegalStateException("the source feed of the engine could not be read: " + ex, ex);
                }
            }
        }
        throw new IllegalStateException("ViewMaterializer holds no " + FEED_CLASS + " field (the probe needs updating)");
    }

    /**
     * The longest a change waits for its pass, as the engine computes it from the debounce
     * ({@code ViewMaterializer.maxDelay}); when the engine no longer has that method, the rule it had:
     * ten debounces, at least one second.
     * @param debounce the debounce
     * @return the longest delay
     */
    public static Duration maxDelay(Duration debounce) {
        try {
            Method method = ViewMaterializer.class.getDeclaredMethod(MAX_DELAY, Duration.class);
            method.setAccessible(true);
            if (method.invoke(null, debounce) instanceof Duration delay) {
                return delay;
            }
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            // fall back to the rule below
        }
        Duration tenTimes = debounce.multipliedBy(10);
        return tenTimes.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenTimes;
    }
}
