package dev.materializer.testing;

/** What a MongoDB server may or may not offer, probed once per server and JVM. */
public enum Capability {

    /** Sessions and multi-document transactions. */
    TRANSACTIONS("multi-document transactions"),

    /** Collections with {@code changeStreamPreAndPostImages}, so deletes carry a pre-image. */
    PRE_IMAGES("change-stream pre-images"),

    /** Updates given as an aggregation pipeline. */
    PIPELINE_UPDATES("pipeline-style updates"),

    /** The {@code $unionWith} aggregation stage. */
    UNION_WITH("the $unionWith stage"),

    /** Update events with an {@code updateDescription} and the right {@code documentKey}. */
    UPDATE_DESCRIPTIONS("update events with updateDescription and a correct documentKey"),

    /** A change stream on a whole database. */
    DATABASE_WATCH("database-level change streams");

    private final String description;

    Capability(String description) {
        this.description = description;
    }

    /** A short phrase naming the capability, for skip reasons and logs. */
    public String description() {
        return description;
    }
}
