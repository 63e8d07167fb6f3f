package dev.materializer.core;

/**
 * Receives the changes of one view (see {@link Materializer#subscribe(String, String, ViewSubscriber)}).
 * Calls come one at a time, in generation order, on a thread of the subscription; a slow
 * subscriber never slows the engine (it falls behind and is given a snapshot). An exception thrown
 * here is logged and the subscription goes on.
 */
public interface ViewSubscriber {

    /**
     * The view's rows at a generation; the deltas that follow start from it, and it replaces
     * whatever the subscriber held.
     * @param snapshot the rows, and why they come whole
     */
    void onSnapshot(ViewRowsSnapshot snapshot);

    /**
     * What one flip changed.
     * @param delta the change from the generation of the previous delta or snapshot
     */
    void onDelta(ViewDelta delta);

    /**
     * A subscription asked to resume from a generation does: the deltas since it follow. Told
     * first, before any delta; a subscription that cannot resume is told with a snapshot instead.
     * @param generation the generation it resumed from
     */
    default void onResumed(long generation) {
    }
}
