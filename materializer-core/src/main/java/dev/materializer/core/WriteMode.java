package dev.materializer.core;

/** How a pass wrote a view. */
public enum WriteMode {

    /** Changed rows and removals in one transaction, in the current generation. */
    TRANSACTION,

    /** A whole new generation in groups under a lease, then a compare-and-set flip. */
    GENERATION,

    /** Nothing was written: the pass failed or gave way before writing. */
    NONE
}
