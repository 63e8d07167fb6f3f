package dev.materializer.core.guard;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The stages a view's pipeline may not hold at any depth, each with the reason given to the user.
 * Any stage whose name starts with {@code $_} is a server-internal stage and is refused too.
 *
 * <p>Immutable and thread-safe.
 */
final class RefusedStages {

    private static final String WRITES = "the materializer writes the target itself";
    private static final String READS_OUTSIDE = "it reads outside the view's sources, where the partition scope cannot apply";
    private static final String FIRST_STAGE =
            "it must be the first stage, so the scope $match cannot precede it and its reads cannot be limited to the partition";

    private static final Map<String, String> REASONS = reasons();

    private RefusedStages() {
    }

    /**
     * The reason a stage is refused.
     * @param stageName the stage's operator, such as {@code $out}
     * @return the reason, or null when the stage is allowed
     */
    static @Nullable String reasonFor(String stageName) {
        String reason = REASONS.get(stageName);
        if (reason == null && stageName.startsWith("$_")) {
            return "it is a server-internal stage";
        }
        return reason;
    }

    private static Map<String, String> reasons() {
        Map<String, String> reasons = new HashMap<>();
        reasons.put("$merge", WRITES);
        reasons.put("$out", WRITES);
        for (String stage : new String[] {"$collStats", "$indexStats", "$currentOp", "$listSessions",
                "$listLocalSessions", "$planCacheStats", "$documents", "$changeStream",
                "$changeStreamSplitLargeEvent", "$listSearchIndexes", "$listSampledQueries", "$querySettings",
                "$queryStats", "$shardedDataDistribution", "$listClusterCatalog", "$listCatalog"}) {
            reasons.put(stage, READS_OUTSIDE);
        }
        // $rankFusion and $scoreFusion run input pipelines of search stages and must come first too.
        for (String stage : new String[] {"$search", "$searchMeta", "$vectorSearch", "$rankFusion", "$scoreFusion"}) {
            reasons.put(stage, FIRST_STAGE);
        }
        return Map.copyOf(reasons);
    }
}
