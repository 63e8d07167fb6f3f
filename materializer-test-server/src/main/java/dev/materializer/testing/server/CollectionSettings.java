package dev.materializer.testing.server;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The collection options the server keeps beyond the plain backend's: which collections have
 * {@code changeStreamPreAndPostImages} enabled, by namespace ({@code db.collection}), and whether the
 * server takes that option at all.
 *
 * <p>Threads: safe for concurrent use.
 */
final class CollectionSettings {

    private final Set<String> preAndPostImages = ConcurrentHashMap.newKeySet();

    private final InProcessBackend.PreImages support;

    CollectionSettings(InProcessBackend.PreImages support) {
        this.support = support;
    }

    /** Whether the server refuses {@code changeStreamPreAndPostImages}, as MongoDB before 6.0 does. */
    boolean preImagesRefused() {
        return support == InProcessBackend.PreImages.REFUSED;
    }

    boolean preAndPostImages(String namespace) {
        return preAndPostImages.contains(namespace);
    }

    void preAndPostImages(String namespace, boolean enabled) {
        if (enabled) {
            preAndPostImages.add(namespace);
        }
        else {
            preAndPostImages.remove(namespace);
        }
    }

    /** A dropped collection loses its options. */
    void forget(String namespace) {
        preAndPostImages.remove(namespace);
    }
}
