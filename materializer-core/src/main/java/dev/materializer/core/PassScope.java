package dev.materializer.core;

/** What a pass recomputed. */
public enum PassScope {

    /** The whole view: its pipeline over the whole partition. */
    FULL,

    /** Only the rows of the keys the changes affected: the pipeline restricted to those keys. */
    KEYS
}
