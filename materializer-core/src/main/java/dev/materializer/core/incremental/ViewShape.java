package dev.materializer.core.incremental;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * What {@link ShapeAnalysis} proved about a view's pipeline: whether its rows can be recomputed a
 * key at a time, and if so which source field paths key them.
 *
 * <p>Guarantee, for {@link Kind#PER_DOCUMENT} and {@link Kind#GROUP_BY}: every row of the result
 * has as its {@code _id} the key ({@link #keyOf}) of the primary source documents it comes from,
 * and running the pipeline on only the primary documents of some keys gives, for those keys,
 * exactly the rows the whole pipeline gives (see {@link KeyRestriction}). A change of a document
 * of a {@link #lookups() lookup}'s foreign collection affects the rows of the primary documents
 * that join it. {@link Kind#FULL} says nothing can be proved; {@link #fullReason()} says why.
 *
 * <p>Immutable and thread-safe. The pipeline is held as given (a view definition's stages, which
 * nobody changes); what this class hands out is a copy.
 */
public final class ViewShape {

    /** The shapes of a pipeline. */
    public enum Kind {
        /**
         * Each row comes from one primary document (per-document stages only); its {@code _id} is the
         * document's {@code _id}, or a field of it that no stage changes.
         */
        PER_DOCUMENT,
        /**
         * Per-document stages, one {@code $group} (or {@code $sortByCount}) whose {@code _id} is a field
         * path or a document of field paths of the primary documents, then per-row stages that keep
         * the {@code _id}: each row is one group, its {@code _id} the group key.
         */
        GROUP_BY,
        /** Nothing proved: every pass recomputes the whole partition. */
        FULL
    }

    private final Kind kind;

    private final @Nullable String fullReason;

    private final String primarySource;

    private final List<BsonDocument> pipeline;

    private final List<String> keyPaths;

    private final List<String> keyNames;

    private final List<LookupLink> lookups;

    ViewShape(Kind kind, @Nullable String fullReason, String primarySource, List<BsonDocument> pipeline,
            List<String> keyPaths, List<String> keyNames, List<LookupLink> lookups) {
        this.kind = kind;
        this.fullReason = fullReason;
        this.primarySource = primarySource;
        this.pipeline = List.copyOf(pipeline);
        this.keyPaths = List.copyOf(keyPaths);
        this.keyNames = List.copyOf(keyNames);
        this.lookups = List.copyOf(lookups);
    }

    /**
     * A shape whose passes are always whole.
     * @param primarySource the collection the pipeline runs on
     * @param reason why
     * @return the shape
     */
    public static ViewShape whole(String primarySource, String reason) {
        return full(primarySource, List.of(), reason);
    }

    static ViewShape full(String primarySource, List<BsonDocument> pipeline, String reason) {
        return new ViewShape(Kind.FULL, reason, primarySource, pipeline, List.of(), List.of(), List.of());
    }

    /** The shape. */
    public Kind kind() {
        return kind;
    }

    /** Whether passes may be restricted to keys: the shape is not {@link Kind#FULL}. */
    public boolean isIncremental() {
        return kind != Kind.FULL;
    }

    /**
     * Why the view is {@link Kind#FULL}, naming the stage by its index ({@code pipeline[2] ($limit) ...}).
     * @return the reason, or null when the view is incremental
     */
    public @Nullable String fullReason() {
        return fullReason;
    }

    /** The collection the pipeline runs on. */
    public String primarySource() {
        return primarySource;
    }

    /**
     * The stages analysed (the user's, before the scope guard adds its {@code $match}).
     * @return a copy
     */
    public List<BsonDocument> pipeline() {
        List<BsonDocument> copy = new ArrayList<>(pipeline.size());
        pipeline.forEach(stage -> copy.add(stage.clone()));
        return copy;
    }

    /** The stages as held, for this package, which never changes them. */
    List<BsonDocument> stages() {
        return pipeline;
    }

    /**
     * The field paths of the primary source documents that key the rows: one for a key of one
     * value, one per field of a document {@code $group _id}, in its order. Empty when FULL.
     * @return the paths
     */
    public List<String> keyPaths() {
        return keyPaths;
    }

    /**
     * The field names of a document {@code $group _id} ({@code {c: "$customer", r: "$region"}} has
     * {@code [c, r]}), one per key path; empty for a key of one value.
     * @return the names
     */
    public List<String> keyNames() {
        return keyNames;
    }

    /** Whether the key is a document of several named parts: the {@code $group _id} is a document. */
    public boolean isCompoundKey() {
        return !keyNames.isEmpty();
    }

    /**
     * The {@code $lookup}s whose foreign changes can be followed to keys; a change of a foreign
     * collection not among them (when the view reads it otherwise) gives a full pass.
     * @return the links, in pipeline order
     */
    public List<LookupLink> lookups() {
        return lookups;
    }

    /**
     * Whether the key is known from a document's {@code _id} alone (every key path is {@code _id}
     * or inside it): a delete event's document key then gives it without a pre-image.
     */
    public boolean keyIsInDocumentId() {
        return !keyPaths.isEmpty() && keyPaths.stream().allMatch(path -> FieldPaths.head(path).equals("_id"));
    }

    /**
     * The key of a primary source document: the value the key paths give, in the form of the row
     * {@code _id} it produces.
     *
     * <ul>
     * <li>a key of one value: the value of the path as the aggregation language evaluates
     *     {@code "$path"} (through arrays: the array of what each element document holds), and a
     *     missing value is {@code null} — MongoDB's {@code $group} puts missing and {@code null}
     *     into one group, whose {@code _id} is {@code null}; an array is one key, the whole array,
     *     as {@code $group} groups by it;</li>
     * <li>a compound key: the document of the {@code _id}'s names with their values, in its order,
     *     a missing value left out (so {@code {r: 1}} for a document without {@code customer}),
     *     exactly as MongoDB builds the group {@code _id}: here missing and {@code null} are two keys.</li>
     * </ul>
     *
     * A row of a {@link Kind#PER_DOCUMENT} view whose key is {@code null} has a null or missing
     * {@code _id}, which makes the engine's pass fail, as it does for the whole pipeline.
     *
     * @param document a primary source document (a post- or pre-image, or a document found by a
     *     {@link AffectedKeys#keyQueries() key query}); it needs only the key paths
     * @return the key
     * @throws IllegalStateException when the view is FULL
     * @throws IllegalArgumentException when a key value holds a deprecated BSON type (undefined,
     *     symbol, DBPointer), whose grouping against {@code null} and strings this package does not model
     */
    public GroupKey keyOf(BsonDocument document) {
        if (!isIncremental()) {
            throw new IllegalStateException("the view is not incremental: " + fullReason);
        }
        if (!isCompoundKey()) {
            BsonValue value = FieldPaths.evaluate(document, keyPaths.get(0));
            requireModelled(value);
            return GroupKey.of(value == null ? BsonNull.VALUE : value);
        }
        BsonDocument key = new BsonDocument();
        for (int i = 0; i < keyNames.size(); i++) {
            BsonValue value = FieldPaths.evaluate(document, keyPaths.get(i));
            requireModelled(value);
            if (value != null) {
                key.append(keyNames.get(i), value);
            }
        }
        return GroupKey.of(key);
    }

    /**
     * A projection of the key paths, for reading the keys of primary documents found by a
     * {@link AffectedKeys#keyQueries() key query}; a path inside another one listed is left out,
     * since MongoDB refuses both.
     * @return a new projection document
     */
    public BsonDocument keyProjection() {
        BsonDocument projection = new BsonDocument();
        for (String path : keyPaths) {
            boolean inside = keyPaths.stream().anyMatch(other -> FieldPaths.isPrefix(other, path));
            if (!inside) {
                projection.put(path, new BsonInt32(1));
            }
        }
        return projection;
    }

    private static void requireModelled(@Nullable BsonValue value) {
        if (value == null) {
            return;
        }
        BsonType type = value.getBsonType();
        if (type == BsonType.UNDEFINED || type == BsonType.SYMBOL || type == BsonType.DB_POINTER) {
            throw new IllegalArgumentException("a key holds a value of the deprecated BSON type "
                    + type.name().toLowerCase(java.util.Locale.ROOT) + ", whose grouping is not modelled");
        }
        if (value.isDocument()) {
            value.asDocument().values().forEach(ViewShape::requireModelled);
        } else if (value.isArray()) {
            value.asArray().forEach(ViewShape::requireModelled);
        }
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof ViewShape shape && kind == shape.kind && Objects.equals(fullReason, shape.fullReason)
                && primarySource.equals(shape.primarySource) && pipeline.equals(shape.pipeline)
                && keyPaths.equals(shape.keyPaths) && keyNames.equals(shape.keyNames) && lookups.equals(shape.lookups);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, fullReason, primarySource, keyPaths, keyNames, lookups);
    }

    @Override
    public String toString() {
        if (!isIncremental()) {
            return "ViewShape[FULL: " + fullReason + "]";
        }
        StringBuilder text = new StringBuilder("ViewShape[").append(kind).append(" of ").append(primarySource)
            .append(", key ");
        if (isCompoundKey()) {
            text.append('{');
            for (int i = 0; i < keyNames.size(); i++) {
                text.append(i == 0 ? "" : ", ").append(keyNames.get(i)).append(": ").append(keyPaths.get(i));
            }
            text.append('}');
        } else {
            text.append(keyPaths.get(0));
        }
        lookups.forEach(link -> text.append(", lookup ").append(link.foreignCollection()).append('.')
            .append(link.foreignField()).append(" = ").append(link.localPath()));
        return text.append(']').toString();
    }
}
