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

    /** A {@code $lookup} with both {@code localField}/{@code foreignField} and a {@code pipeline} (MongoDB 5.0). */
    LOOKUP_FIELDS_WITH_PIPELINE("a $lookup with both localField/foreignField and a pipeline (MongoDB 5.0+)"),

    /** A {@code $graphLookup} that honours {@code restrictSearchWithMatch}. */
    GRAPH_LOOKUP_RESTRICT("restrictSearchWithMatch in $graphLookup"),

    /** Update events with an {@code updateDescription} and the right {@code documentKey}. */
    UPDATE_DESCRIPTIONS("update events with updateDescription and a correct documentKey"),

    /** A change stream on a whole database. */
    DATABASE_WATCH("database-level change streams"),

    /** The {@code $changeStreamSplitLargeEvent} stage (MongoDB 7.0, and 6.0.9): events over 16 MB come in fragments. */
    SPLIT_LARGE_EVENTS("$changeStreamSplitLargeEvent (MongoDB 7.0 or 6.0.9 and later)");

    private final String description;

    Capability(String description) {
        this.description = description;
    }

    /** A short phrase naming the capability, for skip reasons and logs. */
    public String description() {
        return description;
    }
}
