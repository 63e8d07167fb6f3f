package dev.materializer.core.incremental;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.materializer.core.view.IncrementalDeclaration;
import dev.materializer.core.view.InvalidViewException;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.jspecify.annotations.Nullable;

/**
 * Decides, conservatively, whether a view's pipeline can be recomputed a key at a time, and gives
 * its {@link ViewShape}. Anything not proved is {@link ViewShape.Kind#FULL}, with a reason that
 * names the stage.
 *
 * <h2>Incremental shapes</h2>
 *
 * <p>Per-document stages: {@code $match} (not {@code $text}), {@code $project}, {@code $addFields},
 * {@code $set}, {@code $unset}, {@code $replaceRoot}, {@code $replaceWith} and {@code $lookup} in
 * its {@code localField}/{@code foreignField} form. Before a {@code $group} also {@code $unwind}.
 * A stage may leave a key path alone, or copy it under another name ({@code $project: {c: "$customer"}},
 * {@code $addFields: {c: "$customer"}}, {@code $replaceRoot: {newRoot: "$sub"}} or
 * {@code {newRoot: {c: "$customer"}}}): the key is then followed back to the source path. A stage
 * that computes, removes, unwinds, overwrites ({@code as} of a {@code $lookup}) or keeps only part of
 * a key path breaks the key.
 *
 * <ul>
 * <li>{@link ViewShape.Kind#PER_DOCUMENT}: per-document stages only ({@code $sort} allowed, it does
 *     not change which rows there are). The row {@code _id} must follow back to a source path: the
 *     source {@code _id} when no stage touches it, or a field ({@code $project: {_id: "$sku"}}).</li>
 * <li>{@link ViewShape.Kind#GROUP_BY}: per-document stages, one {@code $group} whose {@code _id}
 *     is a field path ({@code "$customer"}) or a document of field paths ({@code {c: "$customer",
 *     r: "$region"}}), or {@code $sortByCount} of a field path; then per-row stages that keep
 *     {@code _id}: {@code $match}, {@code $sort}, {@code $project}, {@code $addFields}, {@code $set},
 *     {@code $unset}, {@code $replaceRoot}/{@code $replaceWith} with {@code _id: "$_id"}, and
 *     {@code $lookup} (localField/foreignField). Each key path must follow back to the source.</li>
 * <li>Either shape with {@code $lookup}s: each one in the localField/foreignField form whose
 *     {@code foreignField} is a top-level field and whose {@code localField} follows back to a
 *     source path (after the {@code $group}: to the row {@code _id} or a named part of it; before
 *     it also through an {@code $unwind} of that path or of a parent of it, since a query on the path
 *     finds the document by any element) gives a {@link LookupLink}; the shape stays incremental and
 *     a foreign change gives a key query.</li>
 * </ul>
 *
 * <h2>Full</h2>
 *
 * Everything else, among which: {@code $limit}, {@code $skip}, {@code $sample} (which documents or
 * rows count depends on the others); {@code $sort} before a {@code $group} (it orders what
 * {@code $first}, {@code $last}, {@code $push} see, and ties may order differently on fewer
 * documents); {@code $count}, {@code $facet}, {@code $bucket}, {@code $bucketAuto},
 * {@code $setWindowFields}, {@code $densify}, {@code $fill} (they combine documents beyond one key);
 * {@code $unionWith}, {@code $graphLookup}, {@code $lookup} with {@code let} or {@code pipeline} or a
 * dotted {@code foreignField}; {@code $geoNear}, {@code $match} with {@code $text}, {@code $redact};
 * {@code $unwind} without a {@code $group} after it (several rows per document with one {@code _id})
 * or after the {@code $group}; a second {@code $group}; a {@code $group _id} that is a constant, a
 * computed expression or holds a nested document; {@code $$NOW}, {@code $$CLUSTER_TIME},
 * {@code $rand}, {@code $sampleRate} and JavaScript ({@code $function}, {@code $accumulator},
 * {@code $where}) anywhere, since a pass at another time could give other rows; and any stage not
 * named above.
 *
 * <p>Stateless and thread-safe.
 */
public final class ShapeAnalysis {

    private static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private static final Set<String> PER_DOCUMENT_STAGES = Set.of("$match", "$project", "$addFields", "$set",
            "$unset", "$replaceRoot", "$replaceWith", "$lookup");

    private static final Map<String, String> FULL_STAGES = Map.ofEntries(
            Map.entry("$limit", "keeps a number of documents: which ones depends on all the others, not on a key"),
            Map.entry("$skip", "skips a number of documents: which ones depends on all the others, not on a key"),
            Map.entry("$sample", "picks documents at random"),
            Map.entry("$count", "counts the whole input"),
            Map.entry("$facet", "its sub-pipelines see the whole input"),
            Map.entry("$bucket", "groups by ranges of a computed value, not by a field"),
            Map.entry("$bucketAuto", "its bucket boundaries depend on all the documents"),
            Map.entry("$setWindowFields", "its windows span several documents"),
            Map.entry("$densify", "adds documents that depend on the others"),
            Map.entry("$fill", "fills values from other documents"),
            Map.entry("$unionWith", "adds the documents of another collection, which no key links to"),
            Map.entry("$graphLookup", "its recursive search reaches documents no key links to"),
            Map.entry("$geoNear", "orders and limits documents by distance"),
            Map.entry("$redact", "may prune any field, the key among them"));

    private static final Set<String> VOLATILE_VARIABLES = Set.of("$$NOW", "$$CLUSTER_TIME");

    private static final Map<String, String> VOLATILE_OPERATORS = Map.of(
            "$rand", "draws random numbers",
            "$sampleRate", "picks documents at random",
            "$function", "runs JavaScript, which may read the clock or draw random numbers",
            "$accumulator", "runs JavaScript, which may read the clock or draw random numbers",
            "$where", "runs JavaScript, which may read the clock or draw random numbers");

    private ShapeAnalysis() {
    }

    /**
     * The shape of a view, with its {@code incremental} declaration applied: {@code false} makes it
     * FULL; a declared key must be the key the analysis proves.
     * @param view the view
     * @return the shape
     * @throws InvalidViewException when the view declares a key its pipeline does not have; the
     *     message names the view and what it may declare
     */
    public static ViewShape of(ViewDefinition view) throws InvalidViewException {
        return analyze(view.pipeline(), view.primarySource(), view.incremental(), view.key().toString());
    }

    /**
     * The shape of a pipeline, with a declaration applied.
     * @param pipeline the view's stages, before the scope guard
     * @param primarySource the collection the pipeline runs on
     * @param declared what the view document says
     * @param viewName the view's name for messages ({@code acme/revenue})
     * @return the shape
     * @throws InvalidViewException when a declared key is not the key proved
     */
    public static ViewShape analyze(List<BsonDocument> pipeline, String primarySource, IncrementalDeclaration declared,
            String viewName) throws InvalidViewException {
        if (declared.mode() == IncrementalDeclaration.Mode.OFF) {
            return ViewShape.full(primarySource, pipeline, "incremental: false in the view document");
        }
        ViewShape shape = analyze(pipeline, primarySource);
        if (declared.mode() == IncrementalDeclaration.Mode.AUTO) {
            return shape;
        }
        List<String> key = declared.key();
        if (!shape.isIncremental()) {
            throw new InvalidViewException("incremental.key " + key + " cannot be used: the pipeline of view "
                    + viewName + " is not incremental (" + shape.fullReason() + "); remove incremental.key, or set "
                    + "incremental: false");
        }
        if (!new HashSet<>(key).equals(new HashSet<>(shape.keyPaths()))) {
            String origin = shape.kind() == ViewShape.Kind.GROUP_BY ? "the source field paths behind the $group _id"
                    : "the source field path behind the row _id";
            throw new InvalidViewException("incremental.key " + key + " is not the key of view " + viewName
                    + ": its rows are keyed by " + shape.keyPaths() + " (" + origin + "); declare incremental: {key: "
                    + (shape.keyPaths().size() == 1 ? "'" + shape.keyPaths().get(0) + "'" : shape.keyPaths())
                    + "}, or incremental: false");
        }
        return shape;
    }

    /**
     * The shape of a pipeline, as proved; never throws for a pipeline it does not understand, which
     * is FULL.
     * @param pipeline the view's stages, before the scope guard
     * @param primarySource the collection the pipeline runs on
     * @return the shape
     */
    public static ViewShape analyze(List<BsonDocument> pipeline, String primarySource) {
        try {
            return new Run(pipeline, primarySource).shape();
        }
        catch (Full full) {
            return ViewShape.full(primarySource, pipeline, full.getMessage());
        }
    }

    /** A reason the pipeline is FULL, thrown out of the analysis of one pipeline. */
    private static final class Full extends Exception {

        private static final long serialVersionUID = 1L;

        Full(String reason) {
            super(reason, null, false, false);
        }
    }

    /** One analysis of one pipeline. */
    private static final class Run {

        private final List<BsonDocument> pipeline;

        private final String primarySource;

        Run(List<BsonDocument> pipeline, String primarySource) {
            this.pipeline = pipeline;
            this.primarySource = primarySource;
        }

        ViewShape shape() throws Full {
            for (int i = 0; i < pipeline.size(); i++) {
                BsonDocument stage = pipeline.get(i);
                if (stage.size() != 1 || !stage.getFirstKey().startsWith("$")) {
                    throw new Full(at(i) + " is not a document with one stage operator");
                }
                requireStable(stage, i);
            }
            int group = groupIndex();
            for (int i = 0; i < pipeline.size(); i++) {
                if (i != group) {
                    requireAllowed(i, group);
                }
            }
            ViewShape shape = group < 0 ? perDocument() : groupBy(group);
            List<LookupLink> lookups = lookups(group, shape);
            return new ViewShape(shape.kind(), null, primarySource, pipeline, shape.keyPaths(), shape.keyNames(),
                    lookups);
        }

        private ViewShape perDocument() throws Full {
            String source = back("_id", pipeline.size() - 1, 0, "the row _id", false);
            return new ViewShape(ViewShape.Kind.PER_DOCUMENT, null, primarySource, pipeline, List.of(source), List.of(),
                    List.of());
        }

        private ViewShape groupBy(int group) throws Full {
            String rowId = back("_id", pipeline.size() - 1, group + 1, "the row _id", false);
            if (!rowId.equals("_id")) {
                throw new Full(FieldPaths.head(rowId).equals("_id")
                        ? "the row _id is taken from " + rowId + ", a part of the $group _id of " + at(group)
                                + ": several groups could give one row _id"
                        : "the row _id is taken from the field '" + rowId + "' of the rows of " + at(group)
                                + ", not from the $group _id");
            }
            BsonDocument stage = pipeline.get(group);
            BsonValue id;
            if (stage.containsKey("$sortByCount")) {
                id = stage.get("$sortByCount");
            } else {
                BsonValue body = stage.get("$group");
                if (!body.isDocument() || !body.asDocument().containsKey("_id")) {
                    throw new Full(at(group) + " ($group) has no _id");
                }
                id = body.asDocument().get("_id");
            }
            List<String> names = new ArrayList<>();
            List<String> paths = new ArrayList<>();
            String single = FieldPaths.pathOf(id);
            if (single != null) {
                paths.add(single);
            } else if (id.isDocument() && !id.asDocument().isEmpty() && !id.asDocument().getFirstKey().startsWith("$")) {
                for (Map.Entry<String, BsonValue> part : id.asDocument().entrySet()) {
                    String path = FieldPaths.pathOf(part.getValue());
                    if (path == null) {
                        throw new Full("the $group _id of " + at(group) + " is computed: its part '" + part.getKey()
                                + "' is " + json(part.getValue()) + ", not a field path");
                    }
                    names.add(part.getKey());
                    paths.add(path);
                }
            } else if (isConstant(id)) {
                throw new Full("the $group _id of " + at(group) + " is the constant " + json(id)
                        + ": every change affects the one row");
            } else {
                throw new Full("the $group _id of " + at(group) + " is computed: " + json(id));
            }
            List<String> sources = new ArrayList<>(paths.size());
            for (String path : paths) {
                sources.add(back(path, group - 1, 0, "the $group key '$" + path + "'", false));
            }
            return new ViewShape(ViewShape.Kind.GROUP_BY, null, primarySource, pipeline, sources, names, List.of());
        }

        private List<LookupLink> lookups(int group, ViewShape shape) throws Full {
            List<LookupLink> links = new ArrayList<>();
            for (int i = 0; i < pipeline.size(); i++) {
                BsonDocument stage = pipeline.get(i);
                if (!stage.containsKey("$lookup")) {
                    continue;
                }
                BsonDocument lookup = stage.getDocument("$lookup");
                String local = lookup.getString("localField").getValue();
                String what = "the localField '" + local + "' of " + at(i) + " ($lookup)";
                String source;
                if (group < 0 || i < group) {
                    source = back(local, i - 1, 0, what, true);
                } else {
                    source = keyPathBehind(back(local, i - 1, group + 1, what, true), shape, what);
                }
                links.add(new LookupLink(lookup.getString("from").getValue(),
                        lookup.getString("foreignField").getValue(), source, i));
            }
            return links;
        }

        /** After a $group, the source path of a row field that is the _id or a named part of it. */
        private String keyPathBehind(String rowPath, ViewShape shape, String what) throws Full {
            if (FieldPaths.head(rowPath).equals("_id")) {
                String rest = FieldPaths.rest("_id", rowPath);
                if (!shape.isCompoundKey()) {
                    return shape.keyPaths().get(0) + rest;
                }
                if (!rest.isEmpty()) {
                    String name = FieldPaths.head(rest.substring(1));
                    int part = shape.keyNames().indexOf(name);
                    if (part >= 0) {
                        return shape.keyPaths().get(part) + FieldPaths.rest("." + name, rest);
                    }
                }
            }
            throw new Full(what + " is " + (rowPath.equals("_id") ? "the whole compound row _id"
                    : "the row field '" + rowPath + "', not the row _id or a named part of it")
                    + ": which rows a foreign change affects is not derived");
        }

        private int groupIndex() throws Full {
            int group = -1;
            for (int i = 0; i < pipeline.size(); i++) {
                String name = pipeline.get(i).getFirstKey();
                if (name.equals("$group") || name.equals("$sortByCount")) {
                    if (group >= 0) {
                        throw new Full(at(i) + " (" + name + ") is a second $group: it regroups the rows of the first, "
                                + "whose keys then no longer name the rows");
                    }
                    group = i;
                }
            }
            return group;
        }

        private void requireAllowed(int i, int group) throws Full {
            BsonDocument stage = pipeline.get(i);
            String name = stage.getFirstKey();
            BsonValue body = stage.get(name);
            boolean beforeGroup = group < 0 || i < group;
            String fullStage = FULL_STAGES.get(name);
            if (fullStage != null) {
                throw new Full(at(i) + " (" + name + ") " + fullStage);
            }
            switch (name) {
                case "$match" -> {
                    if (!body.isDocument()) {
                        throw new Full(at(i) + " ($match) is not a document");
                    }
                    if (containsKey(body, "$text")) {
                        throw new Full(at(i) + " ($match) uses $text, which must be the first stage: no key $match "
                                + "can come before it");
                    }
                }
                case "$sort" -> {
                    if (group >= 0 && i < group) {
                        throw new Full(at(i) + " ($sort) comes before the $group: it orders what $first, $last and "
                                + "$push see, and ties may order differently on fewer documents");
                    }
                }
                case "$unwind" -> {
                    if (group < 0) {
                        throw new Full(at(i) + " ($unwind) gives several rows per source document, which share its "
                                + "_id: rows by key are not well defined");
                    }
                    if (!beforeGroup) {
                        throw new Full(at(i) + " ($unwind) comes after the $group: it gives several rows with one _id");
                    }
                }
                case "$lookup" -> requireLocalForeignLookup(i, body);
                default -> {
                    if (!PER_DOCUMENT_STAGES.contains(name)) {
                        throw new Full(at(i) + " (" + name + ") is not a stage this analysis knows to be "
                                + (beforeGroup ? "per-document" : "per-row"));
                    }
                }
            }
        }

        private void requireLocalForeignLookup(int i, BsonValue body) throws Full {
            if (!body.isDocument()) {
                throw new Full(at(i) + " ($lookup) is not a document");
            }
            BsonDocument lookup = body.asDocument();
            if (lookup.containsKey("pipeline") || lookup.containsKey("let")) {
                throw new Full(at(i) + " ($lookup) has a " + (lookup.containsKey("pipeline") ? "pipeline" : "let")
                        + ": which rows a change of its collection affects is not derived; only the "
                        + "localField/foreignField form is incremental");
            }
            BsonValue from = lookup.get("from");
            BsonValue local = lookup.get("localField");
            BsonValue foreign = lookup.get("foreignField");
            BsonValue as = lookup.get("as");
            if (from == null || !from.isString() || local == null || !local.isString() || foreign == null
                    || !foreign.isString() || as == null || !as.isString()
                    || !FieldPaths.isPath(local.asString().getValue()) || !FieldPaths.isPath(as.asString().getValue())
                    || !FieldPaths.isPath(foreign.asString().getValue())) {
                throw new Full(at(i) + " ($lookup) needs from, localField, foreignField and as, each a name or path");
            }
            if (foreign.asString().getValue().contains(".")) {
                throw new Full(at(i) + " ($lookup) has the dotted foreignField '" + foreign.asString().getValue()
                        + "': which rows a change of '" + from.asString().getValue() + "' affects is not derived");
            }
        }

        /**
         * Follows a path back through stages {@code from} down to {@code to}: the path that held, before
         * them, the value the path holds after them. For a query (the localField of a {@code $lookup}),
         * an {@code $unwind} of the path or of a parent of it is followed too: the value after it is
         * an element of the array before, and a query on the path finds the document by any element.
         */
        private String back(String path, int from, int to, String what, boolean query) throws Full {
            String current = path;
            for (int i = from; i >= to; i--) {
                current = before(i, current, what, query);
            }
            return current;
        }

        private String before(int i, String path, String what, boolean query) throws Full {
            BsonDocument stage = pipeline.get(i);
            String name = stage.getFirstKey();
            BsonValue body = stage.get(name);
            String where = at(i) + " (" + name + ")";
            return switch (name) {
                case "$match", "$sort" -> path;
                case "$addFields", "$set" -> beforeAddFields(requireDocument(body, where), path, what, where);
                case "$unset" -> {
                    for (String field : unsetFields(body, where)) {
                        if (FieldPaths.related(field, path)) {
                            throw new Full(what + " is removed by " + where);
                        }
                    }
                    yield path;
                }
                case "$project" -> beforeProject(requireDocument(body, where), path, what, where);
                case "$unwind" -> {
                    String unwound;
                    String index = null;
                    if (body.isDocument()) {
                        unwound = FieldPaths.pathOf(body.asDocument().get("path"));
                        BsonValue indexField = body.asDocument().get("includeArrayIndex");
                        index = indexField != null && indexField.isString() ? indexField.asString().getValue() : null;
                    } else {
                        unwound = FieldPaths.pathOf(body);
                    }
                    if (unwound == null) {
                        throw new Full(where + " has no field path to unwind");
                    }
                    boolean throughElement = unwound.equals(path) || FieldPaths.isPrefix(unwound, path);
                    if (FieldPaths.related(unwound, path) && !(query && throughElement)) {
                        throw new Full(what + " is unwound by " + where + " (it unwinds '" + unwound + "')");
                    }
                    if (index != null && FieldPaths.related(index, path)) {
                        throw new Full(what + " is overwritten by the includeArrayIndex of " + where);
                    }
                    yield path;
                }
                case "$replaceRoot" -> beforeReplaceRoot(requireDocument(body, where).get("newRoot"), path, what, where);
                case "$replaceWith" -> beforeReplaceRoot(body, path, what, where);
                case "$lookup" -> {
                    BsonDocument lookup = body.asDocument();
                    String as = lookup.getString("as").getValue();
                    if (FieldPaths.related(as, path)) {
                        throw new Full(what + " comes from, or is overwritten by, the documents " + where + " joins from '"
                                + lookup.getString("from").getValue() + "' (as: '" + as + "'): a key made of another "
                                + "collection's fields is not derived");
                    }
                    yield path;
                }
                default -> throw new Full(where + " is not a stage this analysis knows to be per-document");
            };
        }

        private static String beforeAddFields(BsonDocument fields, String path, String what, String where) throws Full {
            for (Map.Entry<String, BsonValue> field : fields.entrySet()) {
                String name = field.getKey();
                if (!FieldPaths.related(name, path)) {
                    continue;
                }
                if (name.contains(".")) {
                    throw new Full(what + " is changed by " + where + ", which sets '" + name + "'");
                }
                String copied = FieldPaths.pathOf(field.getValue());
                if (copied == null) {
                    throw new Full(what + " is computed by " + where + ": '" + name + "' is set to "
                            + json(field.getValue()));
                }
                return copied + FieldPaths.rest(name, path);
            }
            return path;
        }

        private static String beforeProject(BsonDocument projection, String path, String what, String where)
                throws Full {
            boolean exclusion = true;
            for (Map.Entry<String, BsonValue> field : projection.entrySet()) {
                if (!field.getKey().equals("_id") && !isExclusion(field.getValue())) {
                    exclusion = false;
                }
            }
            if (projection.size() == 1 && projection.containsKey("_id") && !isExclusion(projection.get("_id"))) {
                exclusion = false;
            }
            String related = null;
            for (Map.Entry<String, BsonValue> field : projection.entrySet()) {
                String name = field.getKey();
                if (!FieldPaths.related(name, path)) {
                    continue;
                }
                BsonValue value = field.getValue();
                if (isExclusion(value)) {
                    throw new Full(what + " is removed by " + where);
                }
                if (exclusion) {
                    continue;
                }
                if (FieldPaths.isPrefix(path, name)) {
                    throw new Full(what + " is kept only in part ('" + name + "') by " + where);
                }
                if (related != null) {
                    throw new Full(what + " is named twice in " + where);
                }
                related = name;
            }
            if (exclusion) {
                return path;
            }
            if (related == null) {
                if (FieldPaths.head(path).equals("_id") && !projection.containsKey("_id")) {
                    return path;
                }
                throw new Full(what + " is not kept by " + where);
            }
            BsonValue value = projection.get(related);
            if (isInclusion(value)) {
                return path;
            }
            String copied = FieldPaths.pathOf(value);
            if (copied == null) {
                throw new Full(what + " is computed by " + where + ": '" + related + "' is " + json(value));
            }
            return copied + FieldPaths.rest(related, path);
        }

        private static String beforeReplaceRoot(@Nullable BsonValue root, String path, String what, String where)
                throws Full {
            String copied = FieldPaths.pathOf(root);
            if (copied != null) {
                return copied + "." + path;
            }
            if (root != null && root.isDocument() && !root.asDocument().isEmpty()
                    && !root.asDocument().getFirstKey().startsWith("$")) {
                String head = FieldPaths.head(path);
                BsonValue value = root.asDocument().get(head);
                if (value == null) {
                    throw new Full(what + " is not in the new root of " + where);
                }
                String from = FieldPaths.pathOf(value);
                if (from == null) {
                    throw new Full(what + " is computed by " + where + ": '" + head + "' is " + json(value));
                }
                return from + FieldPaths.rest(head, path);
            }
            throw new Full(what + " is replaced by the computed root of " + where);
        }

        private static List<String> unsetFields(BsonValue body, String where) throws Full {
            List<String> fields = new ArrayList<>();
            if (body.isString()) {
                fields.add(body.asString().getValue());
            } else if (body.isArray()) {
                for (BsonValue field : body.asArray()) {
                    if (!field.isString()) {
                        throw new Full(where + " names a field that is not a string");
                    }
                    fields.add(field.asString().getValue());
                }
            } else {
                throw new Full(where + " is neither a field name nor an array of them");
            }
            return fields;
        }

        private static BsonDocument requireDocument(@Nullable BsonValue body, String where) throws Full {
            if (body == null || !body.isDocument()) {
                throw new Full(where + " is not a document");
            }
            return body.asDocument();
        }

        private static boolean isExclusion(BsonValue value) {
            return (value.isBoolean() && !value.asBoolean().getValue())
                    || (value.isNumber() && value.asNumber().doubleValue() == 0);
        }

        private static boolean isInclusion(BsonValue value) {
            return (value.isBoolean() && value.asBoolean().getValue())
                    || (value.isNumber() && value.asNumber().doubleValue() != 0);
        }

        private void requireStable(BsonValue value, int i) throws Full {
            if (value.isString() && isVolatileVariable(value.asString().getValue())) {
                throw new Full(at(i) + " (" + pipeline.get(i).getFirstKey() + ") reads "
                        + value.asString().getValue() + ": a pass at another time could give other rows");
            }
            if (value.isArray()) {
                for (BsonValue element : value.asArray()) {
                    requireStable(element, i);
                }
            } else if (value.isDocument()) {
                for (Map.Entry<String, BsonValue> entry : value.asDocument().entrySet()) {
                    String why = VOLATILE_OPERATORS.get(entry.getKey());
                    if (why != null) {
                        throw new Full(at(i) + " (" + pipeline.get(i).getFirstKey() + ") uses " + entry.getKey() + ", which "
                                + why + ": a pass at another time could give other rows");
                    }
                    requireStable(entry.getValue(), i);
                }
            }
        }

        private static boolean isVolatileVariable(String text) {
            for (String variable : VOLATILE_VARIABLES) {
                if (text.equals(variable) || text.startsWith(variable + ".")) {
                    return true;
                }
            }
            return false;
        }

        private static boolean containsKey(BsonValue value, String key) {
            if (value.isDocument()) {
                for (Map.Entry<String, BsonValue> entry : value.asDocument().entrySet()) {
                    if (entry.getKey().equals(key) || containsKey(entry.getValue(), key)) {
                        return true;
                    }
                }
            } else if (value.isArray()) {
                for (BsonValue element : value.asArray()) {
                    if (containsKey(element, key)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** A value with no field path or operator in it: a literal. */
        private static boolean isConstant(BsonValue value) {
            if (value.isString()) {
                return !value.asString().getValue().startsWith("$");
            }
            if (value.isDocument()) {
                for (Map.Entry<String, BsonValue> entry : value.asDocument().entrySet()) {
                    if (entry.getKey().startsWith("$") || !isConstant(entry.getValue())) {
                        return false;
                    }
                }
                return true;
            }
            if (value.isArray()) {
                for (BsonValue element : value.asArray()) {
                    if (!isConstant(element)) {
                        return false;
                    }
                }
            }
            return true;
        }

        private static String at(int i) {
            return "pipeline[" + i + "]";
        }
    }

    private static String json(BsonValue value) {
        return new BsonDocument("v", value).toJson(JSON).replaceFirst("^\\{\\s*\"v\"\\s*:\\s*", "")
            .replaceFirst("\\s*}$", "");
    }
}
