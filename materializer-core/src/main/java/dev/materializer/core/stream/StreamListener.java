package dev.materializer.core.stream;

import java.util.Set;

import dev.materializer.core.routing.SourceChange;

/**
 * Receives what a {@link CollectionStream} sees. Called on the stream's own thread, one call at a
 * time per stream; implementations must be quick (mark dirty, hand work to executors) and must not
 * throw — a throw is logged and the event is dropped, the stream goes on.
 */
public interface StreamListener {

    /**
     * An event of the collection.
     * @param collection the watched collection
     * @param change the event
     */
    void onChange(String collection, SourceChange change);

    /**
     * The stream opened.
     * @param collection the watched collection
     * @param resumed whether it resumed from a saved or held token (no event was missed)
     * @param reopened whether it opened after an earlier stream of this collection ended
     * @param pendingAtCheckpoint partitions that had unfinished work when the resumed token was saved
     */
    void onOpened(String collection, boolean resumed, boolean reopened, Set<String> pendingAtCheckpoint);

    /**
     * The stream ended (error, close, invalidate) and will open again after a wait.
     * @param collection the watched collection
     * @param reason why
     * @param historyLost whether its position is lost and it restarts from now
     */
    void onEnded(String collection, String reason, boolean historyLost);

    /**
     * The partitions that still have work from the collection (dirty or in a pass), saved with the
     * token so a restart can run them.
     * @param collection the watched collection
     * @return the partitions
     */
    Set<String> pendingPartitions(String collection);
}
