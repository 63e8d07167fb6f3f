package dev.materializer.core.stream;

import java.util.Set;

import dev.materializer.core.routing.SourceChange;
import org.bson.BsonDocument;

/**
 * Receives what a {@link CollectionStream} sees. Called on the stream's own thread, one call at a
 * time per stream; implementations must be quick (mark dirty, hand work to executors). A throw from
 * {@link #onChange} does not end the stream: the stream hands the same event over again, backing off
 * between tries, and never moves past an event its listener did not take — so an implementation
 * that cannot handle an event fails safe itself (marks more) rather than throw, or the stream stalls.
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
     * @param reopened whether it opened after an earlier try of this stream ended (also one whose
     *     cursor failed before it opened)
     * @param from the saved checkpoint it resumes from, handed over with every open until the
     *     listener has been told of one — so also with the open after a first try that failed before
     *     its cursor opened; {@link Checkpoint#NONE} when there was none, after the listener was told
     *     of an open (a reopening resumes from the stream's own position, or starts from now), and
     *     once the checkpoint's history is lost
     */
    void onOpened(String collection, boolean resumed, boolean reopened, Checkpoint from);

    /**
     * The stream ended (error, close, invalidate) and will open again after a wait.
     * @param collection the watched collection
     * @param reason why
     * @param historyLost whether its position is lost and it restarts from now
     */
    void onEnded(String collection, String reason, boolean historyLost);

    /**
     * What to save with the token: the partitions that still have work from the collection (dirty
     * or in a pass) and the live instances, so a restart runs the first and knows what the
     * checkpoint answers for. Called after every event before the token was handed over.
     * @param collection the watched collection
     * @param token where the stream stands
     * @return the checkpoint to save
     */
    Checkpoint checkpointAt(String collection, BsonDocument token);

    /**
     * Whether the stream, quiet now, should save its checkpoint at once rather than when the
     * interval has passed: the checkpoint it saved last answers for less than one saved now would
     * (the partitions moved since, or some were pending in it, and the passes they needed are done). Asked on the stream's
     * thread after each poll that brought no event; a throw counts as no.
     * @param collection the watched collection
     * @return whether to save now; by default never (the interval decides)
     */
    default boolean checkpointWanted(String collection) {
        return false;
    }
}
