package dev.materializer.core;

/** A subscription to one view's changes; closing it frees its queue and its thread. */
public interface ViewSubscription extends AutoCloseable {

    /** The view's partition. */
    String partition();

    /** The text of the view's {@code _id}. */
    String viewId();

    /**
     * The generation of the last snapshot or delta handed to the subscriber (0 before the first),
     * already while the subscriber is called with it: what to resume from once it was applied.
     */
    long generation();

    /**
     * Ends the subscription and frees its queue and thread: no call of the subscriber starts after
     * it returns (called from elsewhere than the subscriber, it waits for a call in progress, which
     * is interrupted). Closing twice does nothing.
     */
    @Override
    void close();
}
