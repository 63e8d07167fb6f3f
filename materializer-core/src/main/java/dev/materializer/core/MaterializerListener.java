package dev.materializer.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Hears what the engine does, for metrics and logs. Every method has an empty default. The engine
 * calls it from its own threads (stream readers, pass workers, timers) and guards each call: a
 * listener that throws is logged and ignored, never stops the engine. Keep methods quick.
 */
public interface MaterializerListener {

    /** A listener that does nothing. */
    MaterializerListener NONE = new MaterializerListener() {
    };

    /**
     * A change of a source arrived from its stream.
     * @param source the source collection
     * @param lag how far the event's time is behind the server's time, when known
     */
    default void onChange(String source, @Nullable Duration lag) {
    }

    /**
     * An event of a source named no partition, so it reaches every partition reading the source (a
     * broadcast): neither its post-image nor its pre-image carries a partition and, for a storage
     * source, its id names none. Deletes and updates of a collection without pre-images are the usual
     * ones (and updates whose document was deleted since, replaces, updates that may move a document,
     * a drop or a rename). Each costs a pass in every partition reading the source, except a delete
     * that {@code BroadcastDeletes} narrows to the partitions holding its row (which is counted here
     * too: the event still named no partition). An event whose routing failed is not counted: it has
     * its own ERROR line, once per cause, and marks every partition reading the source as well.
     *
     * <p>Called on the source's stream thread, once per such event, before its partitions are marked:
     * it must not block, or every later change of the source waits for it.
     * @param source the source collection
     */
    default void onBroadcastEvent(String source) {
    }

    /**
     * A pass of one view starts.
     * @param view the view
     */
    default void onPassStarted(ViewKey view) {
    }

    /**
     * A pass of one view ended.
     * @param report what it did
     */
    default void onPassFinished(PassReport report) {
    }

    /**
     * A view became errored.
     * @param view the view
     * @param error why
     */
    default void onViewErrored(ViewKey view, String error) {
    }

    /**
     * A change stream ended and opens again.
     * @param collection the collection it watches
     * @param reason why it ended
     */
    default void onStreamReopened(String collection, String reason) {
    }

    /**
     * The engine changed state.
     * @param state the new state
     * @param reason why, when not simply running
     */
    default void onStateChanged(EngineState state, @Nullable String reason) {
    }

    /**
     * The reconciler compared a view with a fresh run of its pipeline (and rewrote it when they
     * differed).
     * @param view the view
     * @param report what the comparison found
     * @param drift whether the difference was drift: it stayed once the streams of the view's
     *     lineage had handed over everything committed before the check, with no work of them
     *     pending in the view's partition, so no pass would have healed it
     */
    default void onReconciled(ViewKey view, VerifyReport report, boolean drift) {
    }
}
