package dev.materializer.core.view;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Reads a document of the views collection into a {@link ViewDefinition}, or says — naming the
 * field and what is allowed — why it cannot run.
 *
 * <p>Unknown top-level fields are allowed (users keep their metadata there) and the status field is
 * ignored. The optional {@code incremental} field is read into an {@link IncrementalDeclaration}
 * ({@code true}, {@code false} or {@code {key: <field path or array of field paths>}}); only its form
 * is checked here. Whether the pipeline writes ({@code $merge}, {@code $out}) is not checked here: the scope
 * guard does it, sub-pipelines included.
 *
 * <p>Stateless and thread-safe.
 */
public final class ViewDefinitionParser {

    private static final String ID = "_id";

    private static final String COLLECTIONS = "collections";

    private static final String PIPELINE = "pipeline";

    private static final String TARGET = "targetCollection";

    private static final String SOURCE_FIELDS = "sourceFields";

    private static final String INCREMENTAL = "incremental";

    private static final String INCREMENTAL_KEY = "key";

    private final String partitionField;

    private final String viewsCollection;

    /**
     * Creates a parser.
     * @param partitionField the field of a view document that names its partition
     * @param viewsCollection the views collection, which no view may read or target
     */
    public ViewDefinitionParser(String partitionField, String viewsCollection) {
        this.partitionField = partitionField;
        this.viewsCollection = viewsCollection;
    }

    /**
     * Parses a view document.
     * @param document the document as stored (the status field is ignored)
     * @return the definition
     * @throws InvalidViewException when the document cannot run
     */
    public ViewDefinition parse(BsonDocument document) throws InvalidViewException {
        BsonValue id = id(document);
        String partition = partition(document);
        List<String> collections = collections(document);
        List<BsonDocument> pipeline = pipeline(document);
        String target = target(document, collections);
        Map<String, List<String>> sourceFields = sourceFields(document, collections);
        IncrementalDeclaration incremental = incremental(document);
        String fingerprint = ViewFingerprint.of(collections, pipeline, target, sourceFields, incremental);
        return new ViewDefinition(id, partition, collections, pipeline, target, sourceFields, fingerprint,
                incremental);
    }

    private static BsonValue id(BsonDocument document) throws InvalidViewException {
        BsonValue id = document.get(ID);
        if (id == null) {
            throw new InvalidViewException("_id is missing");
        }
        if (id.isNull() || id.isArray() || id.getBsonType() == BsonType.UNDEFINED) {
            throw new InvalidViewException("_id must be a value other than null, undefined or an array, was "
                    + describe(id));
        }
        // A document id is mutable: keep a copy so the definition stays immutable
        return id.isDocument() ? id.asDocument().clone() : id;
    }

    private String partition(BsonDocument document) throws InvalidViewException {
        BsonValue value = document.get(partitionField);
        if (value == null || !value.isString() || value.asString().getValue().isEmpty()) {
            throw new InvalidViewException(partitionField + " (the partition of the view) must be a non-empty string, was "
                    + describe(value));
        }
        return value.asString().getValue();
    }

    private List<String> collections(BsonDocument document) throws InvalidViewException {
        BsonValue value = document.get(COLLECTIONS);
        if (value == null || !value.isArray() || value.asArray().isEmpty()) {
            throw new InvalidViewException(COLLECTIONS + " must be a non-empty array of source collection names, was "
                    + describe(value));
        }
        BsonArray array = value.asArray();
        List<String> collections = new ArrayList<>(array.size());
        Set<String> seen = new HashSet<>();
        for (int index = 0; index < array.size(); index++) {
            String field = COLLECTIONS + "[" + index + "]";
            String name = collectionName(field, array.get(index));
            if (!seen.add(name)) {
                throw new InvalidViewException(field + " names '" + name + "' again; each source may appear once");
            }
            collections.add(name);
        }
        return collections;
    }

    private static List<BsonDocument> pipeline(BsonDocument document) throws InvalidViewException {
        BsonValue value = document.get(PIPELINE);
        if (value == null || !value.isArray()) {
            throw new InvalidViewException(PIPELINE + " must be an array of stages, was " + describe(value));
        }
        BsonArray array = value.asArray();
        List<BsonDocument> stages = new ArrayList<>(array.size());
        for (int index = 0; index < array.size(); index++) {
            BsonValue stage = array.get(index);
            if (!stage.isDocument() || stage.asDocument().size() != 1
                    || !stage.asDocument().getFirstKey().startsWith("$")) {
                throw new InvalidViewException(PIPELINE + "[" + index + "] must be a document with exactly one stage "
                        + "operator (a key starting with '$'), was " + describe(stage));
            }
            stages.add(stage.asDocument());
        }
        return stages;
    }

    private String target(BsonDocument document, List<String> collections) throws InvalidViewException {
        String target = collectionName(TARGET, document.get(TARGET));
        if (collections.contains(target)) {
            throw new InvalidViewException(TARGET + " '" + target + "' is also in " + COLLECTIONS + " " + collections
                    + "; a view may not have a target that is also one of its own sources");
        }
        return target;
    }

    private static Map<String, List<String>> sourceFields(BsonDocument document, List<String> collections)
            throws InvalidViewException {
        BsonValue value = document.get(SOURCE_FIELDS);
        if (value == null) {
            return Map.of();
        }
        if (!value.isDocument()) {
            throw new InvalidViewException(SOURCE_FIELDS + " must be a document of field paths per source collection, was "
                    + describe(value));
        }
        Map<String, List<String>> sourceFields = new LinkedHashMap<>();
        for (Map.Entry<String, BsonValue> entry : value.asDocument().entrySet()) {
            String source = entry.getKey();
            if (!collections.contains(source)) {
                throw new InvalidViewException(SOURCE_FIELDS + " names '" + source + "', which is not one of "
                        + COLLECTIONS + " " + collections);
            }
            sourceFields.put(source, fieldPaths(SOURCE_FIELDS + "." + source, entry.getValue()));
        }
        return sourceFields;
    }

    private static IncrementalDeclaration incremental(BsonDocument document) throws InvalidViewException {
        BsonValue value = document.get(INCREMENTAL);
        if (value == null || (value.isBoolean() && value.asBoolean().getValue())) {
            return IncrementalDeclaration.AUTO;
        }
        if (value.isBoolean()) {
            return IncrementalDeclaration.OFF;
        }
        String allowed = INCREMENTAL + " must be true, false or {key: <a field path or an array of field paths>}, was ";
        if (!value.isDocument() || value.asDocument().size() != 1
                || !value.asDocument().containsKey(INCREMENTAL_KEY)) {
            throw new InvalidViewException(allowed + describe(value));
        }
        BsonValue key = value.asDocument().get(INCREMENTAL_KEY);
        String field = INCREMENTAL + "." + INCREMENTAL_KEY;
        if (key.isString()) {
            if (!isFieldPath(key.asString().getValue())) {
                throw new InvalidViewException(field + " must be a field path such as 'customer' or 'address.city': "
                        + "dot-separated names, none blank or starting with '$', was " + describe(key));
            }
            return IncrementalDeclaration.key(List.of(key.asString().getValue()));
        }
        if (!key.isArray() || key.asArray().isEmpty()) {
            throw new InvalidViewException(field + " must be a field path or a non-empty array of field paths, was "
                    + describe(key));
        }
        List<String> paths = fieldPaths(field, key);
        if (new HashSet<>(paths).size() != paths.size()) {
            throw new InvalidViewException(field + " names a field path twice: " + paths);
        }
        return IncrementalDeclaration.key(paths);
    }

    private static List<String> fieldPaths(String field, BsonValue value) throws InvalidViewException {
        if (!value.isArray()) {
            throw new InvalidViewException(field + " must be an array of field paths, was " + describe(value));
        }
        BsonArray array = value.asArray();
        List<String> paths = new ArrayList<>(array.size());
        for (int index = 0; index < array.size(); index++) {
            BsonValue path = array.get(index);
            if (!path.isString() || !isFieldPath(path.asString().getValue())) {
                throw new InvalidViewException(field + "[" + index + "] must be a field path such as 'lines.price': "
                        + "dot-separated names, none blank or starting with '$', was " + describe(path));
            }
            paths.add(path.asString().getValue());
        }
        return paths;
    }

    /**
     * Whether a text is a field path the engine accepts: dot-separated segments, each with a
     * non-blank name that does not start with '$'.
     * @param path the text
     * @return true for a field path
     */
    public static boolean isFieldPath(String path) {
        if (path.isBlank()) {
            return false;
        }
        for (String segment : path.split("\\.", -1)) {
            if (segment.isBlank() || segment.startsWith("$")) {
                return false;
            }
        }
        return true;
    }

    private String collectionName(String field, @Nullable BsonValue value)
            throws InvalidViewException {
        if (value == null || !value.isString() || value.asString().getValue().isEmpty()) {
            throw new InvalidViewException(field + " must be a non-empty collection name, was " + describe(value));
        }
        String name = value.asString().getValue();
        if (name.startsWith("system.")) {
            throw new InvalidViewException(field + " '" + name + "' is not allowed: names starting with 'system.' "
                    + "are MongoDB's own collections");
        }
        if (name.indexOf('$') >= 0 || name.indexOf('\0') >= 0) {
            throw new InvalidViewException(field + " '" + name + "' is not a collection name: it may not contain '$' or NUL");
        }
        if (name.equals(viewsCollection)) {
            throw new InvalidViewException(field + " '" + name + "' is not allowed: it is the views collection");
        }
        return name;
    }

    /** A short description of a mistyped value: a string with its text, anything else by its type. */
    private static String describe(@Nullable BsonValue value) {
        if (value == null) {
            return "missing";
        }
        if (value instanceof BsonString string) {
            return "'" + string.getValue() + "'";
        }
        if (value.isDocument()) {
            BsonDocument document = value.asDocument();
            return document.isEmpty() ? "an empty document" : "a document with keys " + document.keySet();
        }
        if (value.isArray()) {
            return value.asArray().isEmpty() ? "an empty array" : "an array";
        }
        return "a value of type " + value.getBsonType().name().toLowerCase(Locale.ROOT);
    }
}
