package dev.materializer.core.incremental;

import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.view.ViewDefinitionParser;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Field paths as the aggregation language reads them: evaluating {@code "$a.b"} on a document, and
 * how two paths relate. Stateless and thread-safe.
 */
final class FieldPaths {

    private FieldPaths() {
    }

    /**
     * The path a stage value names when it is a plain field path expression ({@code "$customer"},
     * {@code "$address.city"}), else null: variables ({@code "$$ROOT"}, {@code "$$CURRENT.a"}),
     * literals, operators and empty segments are not plain paths.
     */
    static @Nullable String pathOf(@Nullable BsonValue expression) {
        if (expression == null || !expression.isString()) {
            return null;
        }
        String text = expression.asString().getValue();
        if (text.length() < 2 || text.charAt(0) != '$' || text.charAt(1) == '$') {
            return null;
        }
        String path = text.substring(1);
        return isPath(path) ? path : null;
    }

    /** Dot-separated segments with names, none starting with {@code $}: the paths a view may name. */
    static boolean isPath(String path) {
        return ViewDefinitionParser.isFieldPath(path);
    }

    /**
     * The value of {@code "$" + path} on a document, as MongoDB evaluates a field path expression, or
     * null when it is missing. Through an array the path continues in each element that is a
     * document, skipping the others and the elements where it is missing, and gives the array of
     * what it found (arrays are not flattened: {@code $a.b} of {@code {a: [{b: [1]}, {b: 2}]}} is
     * {@code [[1], 2]}); through any other non-document value it is missing.
     * @param document the document
     * @param path a field path, without the {@code $}
     * @return the value (the document's own, not a copy), or null for missing
     */
    static @Nullable BsonValue evaluate(BsonDocument document, String path) {
        return evaluate(document, path.split("\\.", -1), 0);
    }

    private static @Nullable BsonValue evaluate(BsonDocument document, String[] segments, int index) {
        BsonValue value = document.get(segments[index]);
        if (index == segments.length - 1 || value == null) {
            return value;
        }
        if (value.isDocument()) {
            return evaluate(value.asDocument(), segments, index + 1);
        }
        if (value.isArray()) {
            List<BsonValue> found = new ArrayList<>();
            for (BsonValue element : value.asArray()) {
                if (element.isDocument()) {
                    BsonValue nested = evaluate(element.asDocument(), segments, index + 1);
                    if (nested != null) {
                        found.add(nested);
                    }
                }
            }
            return new BsonArray(found);
        }
        return null;
    }

    /** Whether one path is the other or a parent of it: whether a change of one can change the other. */
    static boolean related(String a, String b) {
        return a.equals(b) || isPrefix(a, b) || isPrefix(b, a);
    }

    /** Whether {@code parent} is a strict parent of {@code path} ({@code a} of {@code a.b}). */
    static boolean isPrefix(String parent, String path) {
        return path.length() > parent.length() && path.startsWith(parent) && path.charAt(parent.length()) == '.';
    }

    /** What follows {@code parent} in {@code path}, with its leading dot ({@code ".b"}), or "" when equal. */
    static String rest(String parent, String path) {
        return path.substring(parent.length());
    }

    /** The first segment of a path. */
    static String head(String path) {
        int dot = path.indexOf('.');
        return dot < 0 ? path : path.substring(0, dot);
    }

    /**
     * Whether an update description key ({@code "lines.0.price"}) may touch a key path: whether,
     * array positions (segments of digits) left out of both, one is the other or a parent of it, or
     * they are related as written. Leaving positions out only widens the match.
     */
    static boolean touches(String updateKey, String keyPath) {
        return related(updateKey, keyPath) || related(withoutPositions(updateKey), withoutPositions(keyPath));
    }

    private static String withoutPositions(String path) {
        StringBuilder kept = new StringBuilder(path.length());
        for (String segment : path.split("\\.", -1)) {
            if (!segment.isEmpty() && segment.chars().allMatch(c -> c >= '0' && c <= '9')) {
                continue;
            }
            if (kept.length() > 0) {
                kept.append('.');
            }
            kept.append(segment);
        }
        return kept.toString();
    }
}
