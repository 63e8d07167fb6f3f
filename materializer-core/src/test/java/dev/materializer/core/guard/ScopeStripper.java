package dev.materializer.core.guard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Undoes what the guard adds, and writes the generated input in the same normal form, so a test can
 * check that the guard added the scope and changed nothing else. Normal form: every
 * {@code $lookup} and {@code $unionWith} has a {@code pipeline} (empty when the input had none) and
 * {@code $unionWith} is a document.
 */
final class ScopeStripper {

    private final BsonDocument scope;

    ScopeStripper(BsonDocument scope) {
        this.scope = scope;
    }

    /** The guarded pipeline without the scope. */
    BsonArray strip(List<? extends BsonValue> guarded) {
        return read(guarded, true);
    }

    /** The input in the normal form. */
    BsonArray normalize(List<? extends BsonValue> input) {
        return read(input, false);
    }

    private BsonArray read(List<? extends BsonValue> stages, boolean strip) {
        List<BsonValue> rest = new ArrayList<>(stages);
        if (strip && !rest.isEmpty()) {
            BsonDocument first = rest.get(0).asDocument();
            if (first.equals(new BsonDocument("$match", scope))) {
                rest.remove(0);
            } else if (first.containsKey("$geoNear")) {
                BsonDocument geoNear = first.getDocument("$geoNear").clone();
                unscope(geoNear, "query");
                rest.set(0, new BsonDocument("$geoNear", geoNear));
            }
        }
        return walk(rest, strip);
    }

    private BsonArray walk(List<? extends BsonValue> stages, boolean strip) {
        BsonArray result = new BsonArray();
        for (BsonValue value : stages) {
            BsonDocument stage = value.asDocument();
            String name = stage.getFirstKey();
            BsonValue body = stage.get(name);
            BsonValue normal = switch (name) {
                case "$lookup" -> withPipeline(body.asDocument(), strip);
                case "$unionWith" -> withPipeline(body.isString() ? new BsonDocument("coll", body) : body.asDocument(),
                        strip);
                case "$graphLookup" -> {
                    BsonDocument graphLookup = body.asDocument().clone();
                    if (strip) {
                        unscope(graphLookup, "restrictSearchWithMatch");
                    }
                    yield graphLookup;
                }
                case "$facet" -> {
                    BsonDocument facet = new BsonDocument();
                    for (Map.Entry<String, BsonValue> output : body.asDocument().entrySet()) {
                        facet.put(output.getKey(), walk(output.getValue().asArray(), strip));
                    }
                    yield facet;
                }
                default -> body;
            };
            result.add(new BsonDocument(name, normal));
        }
        return result;
    }

    private BsonDocument withPipeline(BsonDocument stage, boolean strip) {
        BsonDocument copy = stage.clone();
        BsonValue pipeline = stage.get("pipeline");
        copy.put("pipeline", read(pipeline == null ? List.of() : pipeline.asArray(), strip));
        return copy;
    }

    /** Removes the scope from a filter: the scope alone goes, {@code {$and: [f, scope]}} becomes f. */
    private void unscope(BsonDocument holder, String key) {
        BsonValue filter = holder.get(key);
        if (filter == null) {
            return;
        }
        if (filter.equals(scope)) {
            holder.remove(key);
        } else if (filter.isDocument() && filter.asDocument().containsKey("$and")) {
            BsonArray terms = filter.asDocument().getArray("$and");
            if (terms.size() == 2 && terms.get(1).equals(scope)) {
                holder.put(key, terms.get(0));
            }
        }
    }
}
