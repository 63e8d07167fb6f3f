package dev.materializer.core.guard;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Walks a guarded pipeline, written apart from the guard, and lists every place where it could read
 * outside the scope or write: a read of a collection not among the readable ones, a read (the
 * pipeline itself, a {@code $lookup} or {@code $unionWith} sub-pipeline, a {@code $graphLookup})
 * not scoped by the exact scope, or a stage that writes or reads outside the sources.
 */
final class GuardedPipelineChecker {

    private static final Set<String> FORBIDDEN = Set.of("$merge", "$out", "$documents", "$collStats", "$currentOp",
            "$changeStream", "$search", "$searchMeta", "$vectorSearch", "$indexStats");

    private final BsonDocument scope;
    private final Collection<String> readable;
    private final List<String> problems = new ArrayList<>();

    private GuardedPipelineChecker(BsonDocument scope, Collection<String> readable) {
        this.scope = scope;
        this.readable = readable;
    }

    /** The problems of the guarded pipeline; empty when it reads only the scope and never writes. */
    static List<String> problems(List<? extends BsonValue> guarded, BsonDocument scope, Collection<String> readable) {
        GuardedPipelineChecker checker = new GuardedPipelineChecker(scope, readable);
        checker.read(guarded, "top");
        return checker.problems;
    }

    private void read(List<? extends BsonValue> stages, String where) {
        if (stages.isEmpty()) {
            problems.add(where + ": an empty read is unscoped");
            return;
        }
        BsonDocument first = stages.get(0).asDocument();
        boolean scoped = first.equals(new BsonDocument("$match", scope))
                || first.containsKey("$geoNear") && contains(first.getDocument("$geoNear").get("query"));
        if (!scoped) {
            problems.add(where + ": does not start with the scope: " + first.toJson());
        }
        walk(stages, where);
    }

    private void walk(List<? extends BsonValue> stages, String where) {
        for (BsonValue value : stages) {
            BsonDocument stage = value.asDocument();
            if (stage.size() != 1) {
                problems.add(where + ": a stage of " + stage.size() + " keys");
                continue;
            }
            String name = stage.getFirstKey();
            BsonValue body = stage.get(name);
            if (FORBIDDEN.contains(name)) {
                problems.add(where + ": " + name);
            }
            switch (name) {
                case "$lookup" -> {
                    from(body.asDocument().get("from"), where);
                    BsonValue pipeline = body.asDocument().get("pipeline");
                    if (pipeline == null) {
                        problems.add(where + ": $lookup without pipeline reads unscoped");
                    } else {
                        read(pipeline.asArray(), where + " > $lookup");
                    }
                }
                case "$unionWith" -> {
                    if (!body.isDocument()) {
                        problems.add(where + ": $unionWith of a bare name reads unscoped");
                        from(body, where);
                    } else {
                        from(body.asDocument().get("coll"), where);
                        BsonValue pipeline = body.asDocument().get("pipeline");
                        if (pipeline == null) {
                            problems.add(where + ": $unionWith without pipeline reads unscoped");
                        } else {
                            read(pipeline.asArray(), where + " > $unionWith");
                        }
                    }
                }
                case "$graphLookup" -> {
                    from(body.asDocument().get("from"), where);
                    if (!contains(body.asDocument().get("restrictSearchWithMatch"))) {
                        problems.add(where + ": $graphLookup search not restricted to the scope");
                    }
                }
                case "$facet" -> body.asDocument().forEach((output, pipeline) -> walk(pipeline.asArray(),
                        where + " > $facet." + output));
                default -> {
                }
            }
        }
    }

    private void from(BsonValue collection, String where) {
        if (collection == null || !collection.isString() || !readable.contains(collection.asString().getValue())) {
            problems.add(where + ": reads " + collection);
        }
    }

    /** Whether a filter is the scope or a conjunction that has the scope as one of its terms. */
    private boolean contains(BsonValue filter) {
        if (filter == null || !filter.isDocument()) {
            return false;
        }
        BsonDocument document = filter.asDocument();
        return document.equals(scope) || document.size() == 1 && document.containsKey("$and")
                && document.getArray("$and").contains(scope);
    }
}
