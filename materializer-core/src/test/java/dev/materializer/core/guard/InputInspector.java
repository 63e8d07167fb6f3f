package dev.materializer.core.guard;

import java.util.Collection;
import java.util.List;
import java.util.Set;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Says, apart from the guard, whether a generated pipeline must be refused: it holds a refused or
 * malformed stage, or reads a collection that is not readable, anywhere. Knows only the shapes the
 * generators of {@link ScopeGuardPropertiesTest} produce.
 */
final class InputInspector {

    static final Set<String> REFUSED = Set.of("$merge", "$out", "$collStats", "$documents", "$currentOp",
            "$changeStream", "$search", "$searchMeta", "$vectorSearch", "$indexStats");

    private InputInspector() {
    }

    static boolean mustBeRefused(List<? extends BsonValue> stages, Collection<String> readable) {
        for (BsonValue value : stages) {
            BsonDocument stage = value.asDocument();
            if (stage.size() != 1 || !stage.getFirstKey().startsWith("$") || REFUSED.contains(stage.getFirstKey())) {
                return true;
            }
            String name = stage.getFirstKey();
            BsonValue body = stage.get(name);
            boolean refused = switch (name) {
                case "$lookup" -> unreadable(body.asDocument().get("from"), readable)
                        || body.asDocument().containsKey("pipeline")
                                && mustBeRefused(body.asDocument().getArray("pipeline"), readable);
                case "$unionWith" -> body.isString() ? unreadable(body, readable)
                        : unreadable(body.asDocument().get("coll"), readable)
                                || body.asDocument().containsKey("pipeline")
                                        && mustBeRefused(body.asDocument().getArray("pipeline"), readable);
                case "$graphLookup" -> unreadable(body.asDocument().get("from"), readable);
                case "$facet" -> body.asDocument().values().stream()
                        .anyMatch(pipeline -> mustBeRefused(pipeline.asArray(), readable));
                default -> false;
            };
            if (refused) {
                return true;
            }
        }
        return false;
    }

    private static boolean unreadable(BsonValue collection, Collection<String> readable) {
        return !readable.contains(collection.asString().getValue());
    }
}
