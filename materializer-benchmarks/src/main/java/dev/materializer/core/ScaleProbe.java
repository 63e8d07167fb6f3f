package dev.materializer.core;

import java.lang.reflect.Field;

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
 * the report prints that row as not measured.
 */
public final class ScaleProbe {

    private static final String FEED_CLASS = "SourceFeed";

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
}
