package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import de.bwaldvogel.mongo.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * Rewrites an aggregation pipeline into the forms the plain backend runs, where MongoDB documents
 * the two as the same:
 * <ul>
 *   <li>the {@code $set} stage is an alias of {@code $addFields};</li>
 *   <li>the {@code $count} accumulator of {@code $group} is {@code {$sum: 1}};</li>
 *   <li>a {@code let} variable of a {@code $lookup} whose expression is missing is bound (to null,
 *       which the backend accepts; MongoDB binds missing) instead of refused as undefined;</li>
 *   <li>a {@code $lookup} with {@code localField}/{@code foreignField} and a {@code pipeline}
 *       (MongoDB 5.0) is the equality match as the first stage of the pipeline, the local value
 *       bound to a variable; the match follows MongoDB's: equal values, or one of an array's
 *       elements, and a missing or null local value matches a missing or null foreign one.</li>
 * </ul>
 * Sub-pipelines ({@code $lookup}, {@code $facet}) are rewritten the same way. Everything else is
 * left as it is, for the backend to run or refuse.
 */
final class PipelineRewrite {

    /** The variable that carries the local value of a rewritten {@code $lookup}. */
    static final String LOCAL_VARIABLE = "materializerLookupLocal";

    private PipelineRewrite() {
    }

    static List<Object> rewrite(List<?> pipeline) {
        List<Object> rewritten = new ArrayList<>(pipeline.size());
        for (Object stage : pipeline) {
            rewritten.add(stage instanceof Document document ? rewriteStage(document) : stage);
        }
        return rewritten;
    }

    private static Document rewriteStage(Document stage) {
        if (stage.size() != 1) {
            return stage;
        }
        Map.Entry<String, Object> only = stage.entrySet().iterator().next();
        Object operand = only.getValue();
        return switch (only.getKey()) {
            case "$set" -> new Document("$addFields", operand);
            case "$group" -> operand instanceof Document group ? new Document("$group", group(group)) : stage;
            case "$lookup" -> operand instanceof Document lookup ? new Document("$lookup", lookup(lookup)) : stage;
            case "$facet" -> operand instanceof Document facet ? new Document("$facet", facet(facet)) : stage;
            default -> stage;
        };
    }

    private static Document group(Document group) {
        Document rewritten = new Document();
        for (Map.Entry<String, Object> field : group.entrySet()) {
            Object value = field.getValue();
            boolean count = value instanceof Document accumulator && accumulator.size() == 1
                    && accumulator.get("$count") instanceof Document arguments && arguments.isEmpty();
            rewritten.put(field.getKey(), count ? new Document("$sum", 1) : value);
        }
        return rewritten;
    }

    private static Document facet(Document facet) {
        Document rewritten = new Document();
        for (Map.Entry<String, Object> field : facet.entrySet()) {
            rewritten.put(field.getKey(), field.getValue() instanceof List<?> pipeline ? rewrite(pipeline) : field.getValue());
        }
        return rewritten;
    }

    private static Document lookup(Document lookup) {
        if (!(lookup.get("pipeline") instanceof List<?> pipeline)) {
            return lookup;
        }
        Document rewritten = new Document(lookup);
        if (lookup.containsKey("let")) {
            rewritten.put("let", let(lookup.get("let")));
        }
        List<Object> stages = rewrite(pipeline);
        if (lookup.get("localField") instanceof String local && lookup.get("foreignField") instanceof String foreign) {
            rewritten.remove("localField");
            rewritten.remove("foreignField");
            Document let = let(lookup.get("let"));
            let.put(LOCAL_VARIABLE, new Document("$ifNull", Arrays.asList("$" + local, null)));
            rewritten.put("let", let);
            stages.add(0, new Document("$match", new Document("$expr", equalityMatch("$" + foreign))));
        }
        rewritten.put("pipeline", stages);
        return rewritten;
    }

    /**
     * The variables of a {@code let}, each bound to null where its expression is missing: the backend
     * refuses a variable bound to missing as undefined, where MongoDB binds it to missing. (Missing
     * and null differ only under {@code $type} and comparisons; {@code $ifNull} reads both alike.)
     */
    private static Document let(@Nullable Object given) {
        Document let = new Document();
        if (given instanceof Document variables) {
            for (Map.Entry<String, Object> variable : variables.entrySet()) {
                let.put(variable.getKey(), new Document("$ifNull", Arrays.asList(variable.getValue(), null)));
            }
        }
        return let;
    }

    /**
     * Whether the foreign value matches the local one, as a {@code $lookup} equality match: each
     * side read as the set of its values (an array's elements, or the one value; missing as null),
     * and the two sets meet.
     */
    private static Document equalityMatch(String foreign) {
        Document foreignValue = new Document("$ifNull", Arrays.asList(foreign, null));
        return new Document("$gt", List.of(new Document("$size", new Document("$setIntersection",
                List.of(values("$$" + LOCAL_VARIABLE), values(foreignValue)))), 0));
    }

    /** The value as an array: itself when it is one, else the one-element array (built by $map: the backend does not evaluate the elements of an array literal). */
    private static Document values(Object value) {
        Document wrapped = new Document("$map", new Document("input", List.of(0)).append("in", value));
        return new Document("$cond", List.of(new Document("$isArray", value), value, wrapped));
    }
}
