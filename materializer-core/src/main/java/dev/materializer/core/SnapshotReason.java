package dev.materializer.core;

/** Why a subscriber was given a snapshot of a view's rows rather than a delta. */
public enum SnapshotReason {

    /** The subscription started from now. */
    STARTED,

    /**
     * The generation a subscription resumed from cannot be followed by deltas: its versions are no
     * longer kept ({@code generation-grace} after it stopped being current), or it was never a
     * generation of the view here.
     */
    NOT_RESUMABLE,

    /** The subscriber fell behind past its queue: it skips to the rows as they are now. */
    FELL_BEHIND,

    /**
     * The view's rows were written anew rather than changed: it was deleted, moved to another
     * partition or target (or back), made invalid where readers read nothing, or rebuilt from the
     * format before row versions.
     */
    REWRITTEN
}
