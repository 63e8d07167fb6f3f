package dev.materializer.core.guard;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One run of the scope guard over one pipeline: walks every stage at every depth, refuses what
 * writes or reads outside the sources, and builds a new pipeline where every read of a collection
 * starts with the scope. Never changes its input; everything it returns is a fresh copy.
 *
 * <p>Holds only immutable state for one call; not shared between calls.
 */
final class PipelineScoper {

    private static final Set<String> LOOKUP_KEYS = Set.of("from", "localField", "foreignField", "let", "pipeline", "as");
    private static final Set<String> UNION_WITH_KEYS = Set.of("coll", "pipeline");
    private static final Set<String> GRAPH_LOOKUP_KEYS = Set.of("from", "startWith", "connectFromField",
            "connectToField", "as", "maxDepth", "depthField", "restrictSearchWithMatch");

    /** The scope of each collection read: a fresh filter document per call. */
    private final Function<String, BsonDocument> scopeOf;
    private final Collection<String> readable;

    PipelineScoper(Function<String, BsonDocument> scopeOf, Collection<String> readable) {
        this.scopeOf = scopeOf;
        this.readable = readable;
    }

    /**
     * A pipeline that reads a collection, guarded: the scope merged into a leading {@code $geoNear}
     * (which must stay first) or else prepended as a {@code $match}.
     */
    BsonArray guardRead(List<? extends BsonValue> stages, String collection, String path)
            throws ScopeViolationException {
        BsonArray guarded = guardStages(stages, path);
        BsonDocument first = guarded.isEmpty() ? null : guarded.get(0).asDocument();
        if (first != null && first.containsKey("$geoNear")) {
            BsonDocument geoNear = first.getDocument("$geoNear");
            geoNear.put("query", scoped(geoNear.get("query"), collection, path + "[0].$geoNear.query"));
        } else {
            guarded.add(0, new BsonDocument("$match", scopeOf.apply(collection)));
        }
        return guarded;
    }

    /** Stages guarded one by one, without a scope of their own (the input is already scoped). */
    private BsonArray guardStages(List<? extends BsonValue> stages, String path) throws ScopeViolationException {
        List<BsonValue> guarded = new ArrayList<>(stages.size() + 1);
        for (int i = 0; i < stages.size(); i++) {
            guarded.add(guardStage(stages.get(i), path + "[" + i + "]"));
        }
        return new BsonArray(guarded);
    }

    private BsonDocument guardStage(BsonValue stage, String path) throws ScopeViolationException {
        if (!stage.isDocument() || stage.asDocument().size() != 1
                || !stage.asDocument().getFirstKey().startsWith("$")) {
            throw violation(path, "a stage must be a document with exactly one $ key, found " + describe(stage));
        }
        String name = stage.asDocument().getFirstKey();
        String reason = RefusedStages.reasonFor(name);
        if (reason != null) {
            throw violation(path, name + " is refused: " + reason);
        }
        BsonValue body = stage.asDocument().get(name);
        String bodyPath = path + "." + name;
        BsonValue guarded = switch (name) {
            case "$lookup" -> lookup(body, bodyPath);
            case "$unionWith" -> unionWith(body, bodyPath);
            case "$graphLookup" -> graphLookup(body, bodyPath);
            case "$facet" -> facet(body, bodyPath);
            default -> copy(body);
        };
        return new BsonDocument(name, guarded);
    }

    /** Both forms: the sub-pipeline (added for the localField/foreignField form) starts with the scope. */
    private BsonDocument lookup(BsonValue body, String path) throws ScopeViolationException {
        BsonDocument lookup = requireDocument(body, path);
        requireKnownKeys(lookup, LOOKUP_KEYS, path);
        requireReadable(lookup.get("from"), path + ".from", "a $lookup without from reads $documents");
        return replacing(lookup, "pipeline", guardRead(subPipeline(lookup, path),
                lookup.getString("from").getValue(), path + ".pipeline"));
    }

    /** The string form becomes the document form so that it can carry the scope. */
    private BsonDocument unionWith(BsonValue body, String path) throws ScopeViolationException {
        if (body.isString()) {
            requireReadable(body, path, "a $unionWith needs a collection");
            return new BsonDocument("coll", body).append("pipeline",
                    guardRead(List.of(), body.asString().getValue(), path + ".pipeline"));
        }
        BsonDocument unionWith = requireDocument(body, path);
        requireKnownKeys(unionWith, UNION_WITH_KEYS, path);
        requireReadable(unionWith.get("coll"), path + ".coll", "a $unionWith without coll reads $documents");
        return replacing(unionWith, "pipeline", guardRead(subPipeline(unionWith, path),
                unionWith.getString("coll").getValue(), path + ".pipeline"));
    }

    /** Every document the search visits must match the scope. */
    private BsonDocument graphLookup(BsonValue body, String path) throws ScopeViolationException {
        BsonDocument graphLookup = requireDocument(body, path);
        requireKnownKeys(graphLookup, GRAPH_LOOKUP_KEYS, path);
        requireReadable(graphLookup.get("from"), path + ".from", "a $graphLookup needs from");
        String restrictPath = path + ".restrictSearchWithMatch";
        return replacing(graphLookup, "restrictSearchWithMatch",
                scoped(graphLookup.get("restrictSearchWithMatch"), graphLookup.getString("from").getValue(),
                        restrictPath));
    }

    /** Facets see the already scoped input; only what they read themselves needs the scope. */
    private BsonDocument facet(BsonValue body, String path) throws ScopeViolationException {
        BsonDocument facet = requireDocument(body, path);
        BsonDocument guarded = new BsonDocument();
        for (Map.Entry<String, BsonValue> output : facet.entrySet()) {
            String outputPath = path + "." + output.getKey();
            guarded.put(output.getKey(), guardStages(requireArray(output.getValue(), outputPath), outputPath));
        }
        return guarded;
    }

    private List<BsonValue> subPipeline(BsonDocument stage, String path) throws ScopeViolationException {
        BsonValue pipeline = stage.get("pipeline");
        return pipeline == null ? List.of() : requireArray(pipeline, path + ".pipeline");
    }

    /** The filter and the scope: {@code {$and: [filter, scope]}}, or the scope alone when there is none. */
    private BsonDocument scoped(@Nullable BsonValue filter, String collection, String path)
            throws ScopeViolationException {
        if (filter == null) {
            return scopeOf.apply(collection);
        }
        BsonDocument existing = requireDocument(filter, path);
        return new BsonDocument("$and", new BsonArray(List.of(existing.clone(), scopeOf.apply(collection))));
    }

    private void requireReadable(@Nullable BsonValue collection, String path, String whenMissing)
            throws ScopeViolationException {
        if (collection == null) {
            throw violation(path, "missing: " + whenMissing + ", which is refused; name one of " + allowed());
        }
        if (collection.isDocument()) {
            throw violation(path, "reading another database ({db, coll}) is refused; name one of " + allowed());
        }
        if (!collection.isString()) {
            throw violation(path, "must be a collection name, found " + describe(collection) + "; name one of "
                    + allowed());
        }
        String name = collection.asString().getValue();
        if (!readable.contains(name)) {
            throw violation(path, "collection \"" + name + "\" is not a source of the view; it may read " + allowed());
        }
    }

    private static void requireKnownKeys(BsonDocument stage, Set<String> known, String path)
            throws ScopeViolationException {
        for (String key : stage.keySet()) {
            if (!known.contains(key)) {
                throw violation(path, "unknown option \"" + key + "\" is refused; allowed: " + new TreeSet<>(known));
            }
        }
    }

    private static BsonDocument requireDocument(BsonValue value, String path) throws ScopeViolationException {
        if (!value.isDocument()) {
            throw violation(path, "must be a document, found " + describe(value));
        }
        return value.asDocument();
    }

    private static BsonArray requireArray(BsonValue value, String path) throws ScopeViolationException {
        if (!value.isArray()) {
            throw violation(path, "must be an array of stages, found " + describe(value));
        }
        return value.asArray();
    }

    /** A copy of the document with the key's value replaced (or appended), keeping the key order. */
    private static BsonDocument replacing(BsonDocument original, String key, BsonValue value) {
        BsonDocument copy = new BsonDocument();
        for (Map.Entry<String, BsonValue> entry : original.entrySet()) {
            copy.put(entry.getKey(), entry.getKey().equals(key) ? value : copy(entry.getValue()));
        }
        copy.putIfAbsent(key, value);
        return copy;
    }

    private static BsonValue copy(BsonValue value) {
        if (value.isDocument()) {
            return value.asDocument().clone();
        }
        if (value.isArray()) {
            return value.asArray().clone();
        }
        return value;
    }

    private String allowed() {
        return new TreeSet<>(readable).toString();
    }

    private static String describe(BsonValue value) {
        if (value.isDocument()) {
            return value.asDocument().isEmpty() ? "an empty document" : "keys " + value.asDocument().keySet();
        }
        return "a value of type " + value.getBsonType();
    }

    private static ScopeViolationException violation(String path, String problem) {
        return new ScopeViolationException(path + ": " + problem);
    }
}
