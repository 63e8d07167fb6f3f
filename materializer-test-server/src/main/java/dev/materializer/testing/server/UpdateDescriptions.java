package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import de.bwaldvogel.mongo.bson.Document;

/**
 * The {@code updateDescription} of an update event, as MongoDB documents it: {@code updatedFields}
 * (each changed path with its new value), {@code removedFields} (the paths removed) and
 * {@code truncatedArrays} ({@code {field, newSize}} for each array made shorter at its end).
 *
 * <p>It compares the document before and after the update, at the depth the update named: a
 * subdocument or array is described field by field (dotted paths) only where an operator named a
 * path inside it, or (for an array) where the operator only appended to it or only cut its end;
 * otherwise the changed field is given whole. So {@code $set: {"a.b": 1}} reads as {@code "a.b"},
 * {@code $set: {a: {...}}} as {@code "a"}, {@code $push} as {@code "arr.<index>"} and
 * {@code $pop: {arr: 1}} as a truncated array.
 */
final class UpdateDescriptions {

    private final Set<List<String>> namedPaths;

    private final Document updated = new Document();

    private final List<String> removed = new ArrayList<>();

    private final List<Document> truncated = new ArrayList<>();

    private UpdateDescriptions(Set<List<String>> namedPaths) {
        this.namedPaths = namedPaths;
    }

    /**
     * The description of one update.
     *
     * @param before the document before
     * @param after the document after
     * @param update the update document ({@code {$set: {...}, ...}})
     */
    static Document describe(Document before, Document after, Document update) {
        Set<List<String>> named = new LinkedHashSet<>();
        for (Object operand : update.values()) {
            if (operand instanceof Document fields) {
                for (String path : fields.keySet()) {
                    named.add(List.of(path.split("\\.", -1)));
                }
            }
        }
        UpdateDescriptions description = new UpdateDescriptions(named);
        description.compareDocuments(List.of(), before, after);
        return new Document("updatedFields", description.updated)
            .append("removedFields", description.removed)
            .append("truncatedArrays", description.truncated);
    }

    private void compareDocuments(List<String> path, Document before, Document after) {
        for (String key : before.keySet()) {
            if (!after.containsKey(key)) {
                removed.add(join(append(path, key)));
            }
        }
        for (Map.Entry<String, Object> entry : after.entrySet()) {
            List<String> fieldPath = append(path, entry.getKey());
            if (path.isEmpty() && entry.getKey().equals("_id")) {
                continue;
            }
            if (!before.containsKey(entry.getKey())) {
                updated.put(join(fieldPath), entry.getValue());
            }
            else {
                compareValues(fieldPath, before.get(entry.getKey()), entry.getValue());
            }
        }
    }

    private void compareValues(List<String> path, Object before, Object after) {
        if (Objects.equals(before, after) && sameTypes(before, after)) {
            return;
        }
        if (before instanceof Document oldDocument && after instanceof Document newDocument && namesInside(path)) {
            compareDocuments(path, oldDocument, newDocument);
        }
        else if (before instanceof List<?> oldList && after instanceof List<?> newList) {
            compareArrays(path, oldList, newList);
        }
        else {
            updated.put(join(path), after);
        }
    }

    private void compareArrays(List<String> path, List<?> before, List<?> after) {
        int common = Math.min(before.size(), after.size());
        boolean prefixKept = before.subList(0, common).equals(after.subList(0, common));
        if (!namesInside(path) && !prefixKept) {
            updated.put(join(path), after);
            return;
        }
        if (after.size() < before.size()) {
            truncated.add(new Document("field", join(path)).append("newSize", after.size()));
        }
        for (int index = 0; index < after.size(); index++) {
            List<String> elementPath = append(path, Integer.toString(index));
            if (index >= before.size()) {
                updated.put(join(elementPath), after.get(index));
            }
            else {
                compareValues(elementPath, before.get(index), after.get(index));
            }
        }
    }

    /** Whether an operator named a path strictly inside this one (a positional segment matches any index). */
    private boolean namesInside(List<String> path) {
        for (List<String> named : namedPaths) {
            if (named.size() > path.size() && matches(named.subList(0, path.size()), path)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(List<String> named, List<String> path) {
        for (int i = 0; i < path.size(); i++) {
            String segment = named.get(i);
            boolean positional = segment.equals("$") || segment.startsWith("$[");
            if (!(positional && isIndex(path.get(i))) && !segment.equals(path.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIndex(String segment) {
        return !segment.isEmpty() && segment.chars().allMatch(Character::isDigit);
    }

    /** An int that became a long is a change, though Java's equals of the two boxed numbers says no. */
    private static boolean sameTypes(Object before, Object after) {
        return before == null || after == null || before.getClass() == after.getClass();
    }

    private static List<String> append(List<String> path, String segment) {
        List<String> longer = new ArrayList<>(path);
        longer.add(segment);
        return longer;
    }

    private static String join(List<String> path) {
        return String.join(".", path);
    }
}
