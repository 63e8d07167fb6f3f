package dev.materializer.core.freshness;

/** What one look at the engine says of a view a caller waits for. */
public enum Freshness {

    /** The view's rows include every change of its sources made before the wait began. */
    FRESH,

    /** Not yet: a stream has not heard that far, or a pass has still to apply what it heard. */
    WAITING,

    /** This instance does not own the view's partition: only its owner can say, through the view's status. */
    NOT_OWNED,

    /** This instance knows no such view. */
    UNKNOWN_VIEW
}
