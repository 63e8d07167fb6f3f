package dev.materializer.core;

/** How a pass wrote a view. */
public enum WriteMode {

    /**
     * The new row versions, the closing of the superseded ones and the flip to the new generation
     * in one transaction: a small diff on a deployment with transactions.
     */
    TRANSACTION,

    /**
     * The new row versions and the closing of the superseded ones in groups under a lease, then a
     * compare-and-set flip to the new generation: a diff larger than {@code maxTransactionRows}, or
     * a deployment without transactions.
     */
    GENERATION,

    /** Nothing was written: the pass failed or gave way before writing. */
    NONE
}
