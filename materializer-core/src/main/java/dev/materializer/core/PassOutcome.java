package dev.materializer.core;

/** How a pass of one view ended. */
public enum PassOutcome {

    /** The result differed from the target: rows were written or removed. */
    CHANGED,

    /** The result equalled the target: nothing was written. */
    UNCHANGED,

    /** The view failed (pipeline, guard, limits, definition); its status is {@code errored}. */
    ERRORED,

    /** Another pass or instance won (write conflict, lost lease or flip): a later pass follows. */
    SUPERSEDED
}
