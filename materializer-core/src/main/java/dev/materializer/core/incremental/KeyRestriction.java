package dev.materializer.core.incremental;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A view's pipeline restricted to some keys: what an incremental pass runs instead of the whole
 * pipeline, and how its rows relate to the keys.
 *
 * <p>Guarantee: for an incremental {@link ViewShape}, {@link #pipeline} of some keys returns
 * exactly the rows of the whole pipeline whose {@code _id} is one of the keys ({@link #rowIdOf}),
 * no other row. A key without a row in that result has no row in the whole result either: the
 * writer replaces the stored rows of the keys by the result and removes those of the keys it lacks.
 *
 * <p>The restricted pipeline is the view's stages between two {@code $match} stages:
 * <ol>
 * <li>first, a filter on the key paths of the source documents ({@link #keyFilter}), so an index on
 *     them serves it (after the scope guard's partition {@code $match}, with which MongoDB merges
 *     it): it lets through every document of the keys and perhaps some others
 *     ({@code {customer: {$in: [...]}}}; {@code {customer: null}} also matches a missing field, as
 *     {@code $group} groups them; a compound key is an {@code $or} of one conjunction per key, a
 *     missing part matched as {@code null}); when some key is a value such a filter cannot be
 *     trusted to find exactly (an array, a document, a regular expression, NaN or another rare type:
 *     a query on an array path matches elements, and through arrays of documents the aggregation
 *     value of a path differs from what a query sees) there is no first filter and the pipeline
 *     reads the partition whole;</li>
 * <li>last, an exact filter on the row {@code _id} ({@link #rowFilter}): aggregation equality with
 *     each key, so only the rows of the keys remain, whatever else the first filter let
 *     through (the rows of other keys it let through may be incomplete, and are dropped).</li>
 * </ol>
 *
 * <p>Immutable and thread-safe.
 */
public final class KeyRestriction {

    private final ViewShape shape;

    private KeyRestriction(ViewShape shape) {
        this.shape = shape;
    }

    /**
     * The restriction of a view.
     * @param shape an incremental shape
     * @return the restriction
     * @throws IllegalArgumentException when the shape is FULL
     */
    public static KeyRestriction of(ViewShape shape) {
        if (!shape.isIncremental()) {
            throw new IllegalArgumentException("the view is not incremental: " + shape.fullReason());
        }
        return new KeyRestriction(shape);
    }

    /**
     * The view's pipeline restricted to the keys; to be guarded by the scope guard like the whole
     * pipeline.
     * @param keys the keys, at least one
     * @return a new pipeline
     * @throws IllegalArgumentException when there is no key
     */
    public List<BsonDocument> pipeline(Collection<GroupKey> keys) {
        Set<GroupKey> distinct = distinct(keys);
        List<BsonDocument> restricted = new ArrayList<>(shape.stages().size() + 2);
        BsonDocument keyFilter = keyFilter(distinct);
        if (keyFilter != null) {
            restricted.add(new BsonDocument("$match", keyFilter));
        }
        shape.stages().forEach(stage -> restricted.add(stage.clone()));
        restricted.add(new BsonDocument("$match", rowFilter(distinct)));
        return restricted;
    }

    /**
     * The filter on the primary source documents that lets through every document of the keys (and
     * maybe others), or null when some key cannot be matched so (see the class comment).
     * @param keys the keys, at least one
     * @return a new filter, or null
     * @throws IllegalArgumentException when there is no key
     */
    public @Nullable BsonDocument keyFilter(Collection<GroupKey> keys) {
        Set<GroupKey> distinct = distinct(keys);
        List<String> paths = shape.keyPaths();
        if (!shape.isCompoundKey()) {
            BsonArray values = new BsonArray();
            for (GroupKey key : distinct) {
                BsonValue value = matchable(key.raw());
                if (value == null) {
                    return null;
                }
                values.add(value);
            }
            return new BsonDocument(paths.get(0), values.size() == 1 ? values.get(0) : new BsonDocument("$in", values));
        }
        List<String> names = shape.keyNames();
        BsonArray branches = new BsonArray();
        for (GroupKey key : distinct) {
            BsonDocument parts = key.raw().isDocument() ? key.raw().asDocument() : new BsonDocument();
            BsonDocument branch = new BsonDocument();
            for (int i = 0; i < names.size(); i++) {
                BsonValue part = parts.get(names.get(i));
                // A missing part is matched as null, which a filter on the path also finds missing
                BsonValue value = matchable(part == null ? BsonNull.VALUE : part);
                if (value == null) {
                    return null;
                }
                // Two names of one path hold one value (both present or both missing)
                branch.putIfAbsent(paths.get(i), value);
            }
            branches.add(branch);
        }
        return branches.size() == 1 ? branches.get(0).asDocument() : new BsonDocument("$or", branches);
    }

    /**
     * The exact filter of the rows of the keys: {@code {$expr: {$or: [{$eq: [{$ifNull: ["$_id", null]},
     * {$literal: key}]}, ...]}}} (one {@code $eq} for one key). The aggregation {@code $eq} compares
     * as {@code $group} does (numbers by value, arrays and documents whole), and a missing {@code _id}
     * counts as the {@code null} key. ({@code $in} would say the same on MongoDB, but mongo-java-server
     * compares numbers in it by type, {@code 1} apart from {@code 1L}; {@code $eq} it compares by value.)
     * @param keys the keys, at least one
     * @return a new {@code $match} filter
     * @throws IllegalArgumentException when there is no key
     */
    public BsonDocument rowFilter(Collection<GroupKey> keys) {
        BsonDocument rowId = new BsonDocument("$ifNull", new BsonArray(List.of(new BsonString("$_id"), BsonNull.VALUE)));
        BsonArray equalities = new BsonArray();
        for (GroupKey key : distinct(keys)) {
            equalities.add(new BsonDocument("$eq",
                    new BsonArray(List.of(rowId.clone(), new BsonDocument("$literal", rowIdOf(key))))));
        }
        return new BsonDocument("$expr", equalities.size() == 1 ? equalities.get(0) : new BsonDocument("$or", equalities));
    }

    /**
     * The {@code _id} of the row a key gives (when the pipeline gives it a row): for a group key of
     * one field path its value ({@code null} for missing), for a document {@code _id} the document of
     * its names, for a per-document view the source value behind the row {@code _id}. Which of
     * MongoDB's equal forms of a number the pipeline puts there is not known: compare through
     * {@link #keyOfRowId}.
     * @param key a key
     * @return the row id
     */
    public BsonValue rowIdOf(GroupKey key) {
        return key.value();
    }

    /**
     * The key of a row of the result, from its {@code _id}.
     * @param rowId the row's {@code _id}
     * @return the key
     */
    public GroupKey keyOfRowId(@Nullable BsonValue rowId) {
        return GroupKey.of(rowId);
    }

    /** A key value a filter on a path is trusted to find exactly, or null. */
    private static @Nullable BsonValue matchable(BsonValue value) {
        return switch (value.getBsonType()) {
            case NULL, INT32, INT64, STRING, BOOLEAN, DATE_TIME, OBJECT_ID -> value;
            case DOUBLE -> Double.isNaN(value.asDouble().getValue()) ? null : value;
            case DECIMAL128 -> value.asDecimal128().getValue().isNaN() ? null : value;
            default -> null;
        };
    }

    private static Set<GroupKey> distinct(Collection<GroupKey> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a restriction needs at least one key; with none there is nothing to run");
        }
        return new LinkedHashSet<>(keys);
    }

    @Override
    public String toString() {
        return "KeyRestriction[" + shape + "]";
    }
}
