package dev.materializer.core.incremental;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The keys whose rows one change, or several, may change: what an incremental pass of a view must
 * recompute. Built from change events by {@link #of}, merged across the events of a pass by
 * {@link #union} or, mark after mark in linear time and bounded, by {@link KeyMarks}.
 *
 * <p>Guarantee: a row of a key that is not in {@link #keys()}, not the key of a document of
 * {@link #unknownOldKeyOf()} before the change, and not the key of a primary document a
 * {@link #keyQueries() key query} finds, is the same before and after the change. When nothing
 * can be said, {@link #fullPassReason()} says why and the other parts are empty. The keys may hold
 * more than the rows that really change (never fewer): a key whose rows did not change is only
 * recomputed to the same rows.
 *
 * <h2>A change of the primary source</h2>
 *
 * <ul>
 * <li>insert: the key of the post-image;</li>
 * <li>replace: the key of the post-image and that of the pre-image; without a pre-image the old
 *     key is unknown: the document id goes to {@link #unknownOldKeyOf()};</li>
 * <li>update: the key of the post-image and, with a pre-image, that of the pre-image; without one,
 *     when the update description names no path that touches a key path or the partition field (a
 *     path touches another when it is the other, a parent or a child, array positions left out:
 *     {@code customer.name} touches {@code customer} and {@code customer.name.first},
 *     {@code lines.0.sku} touches {@code lines.sku}), the old key is the new one; else the id goes
 *     to {@link #unknownOldKeyOf()}. The partition field counts because the post-image is looked up
 *     later: after a move, changes in the new partition may have changed the key since, and their
 *     events name the keys in between there only. No update description counts as touching every
 *     path. Without a post-image (the document was deleted since, or was not looked up) the key it
 *     has now is unknown: the pre-image's key when no key path was touched, else a full pass;</li>
 * <li>delete: the key of the pre-image, else the id goes to {@link #unknownOldKeyOf()};</li>
 * <li>when every key path is in {@code _id} ({@link ViewShape#keyIsInDocumentId()}), the document
 *     id gives every key, whatever the images carry or lack.</li>
 * </ul>
 *
 * Unknown is whole: a key is never read from an image that does not carry its path
 * ({@link SourceChange#imagesCarry}: a change stream that projects its events keeps only some
 * fields), since a field it left out would read as missing, the {@code null} key. Such a change is
 * a full pass, unless the document id gives the key.
 *
 * Keys are computed whatever the partition field says: a document that moves to another partition
 * affects its key in both, and the caller hands the change to the views of each as it routes it.
 *
 * <h2>A change of a {@code $lookup}'s foreign collection</h2>
 *
 * The value of the {@code foreignField} before and after the change gives the local values that
 * join the document (the value; for an array each element and the array itself; for {@code null},
 * missing, an empty array or an array holding {@code null} also {@code null} and {@code []}), and a
 * key query {@code {<localPath>: {$in: [those values]}}} on the primary source finds the documents
 * whose keys are affected. A delete without a pre-image, a replace without one, an update of the
 * {@code foreignField} without one, and any change without a post-image where one is needed, are
 * full passes (unless the {@code foreignField} is {@code _id}: the document id then suffices), and
 * so is a change whose images do not carry the {@code foreignField}.
 *
 * <h2>Always a full pass</h2>
 *
 * A view that is not incremental; drop, rename, dropDatabase, invalidate and unknown events; a
 * change of a collection the shape does not link to rows; a key holding a deprecated BSON type
 * (undefined, symbol, DBPointer).
 *
 * <p>The events of a pass are to be merged ({@link #union}) and recomputed together: an update's
 * post-image is the document when it was looked up, maybe after later changes, whose own events
 * then name the keys in between.
 *
 * <p>Immutable and thread-safe.
 */
public final class AffectedKeys {

    private static final AffectedKeys NONE = new AffectedKeys(Set.of(), Map.of(), Map.of(), null);

    private final Set<GroupKey> keys;

    /** The ids by their key, so ids MongoDB takes for one ({@code 1} and {@code 1.0}) are one. */
    private final Map<GroupKey, BsonValue> unknownOldKeyOf;

    /**
     * The key queries: per local path of the primary source, the values that join a changed foreign
     * document (each once as MongoDB compares them); one query per path looks for all of them.
     */
    private final Map<String, Set<GroupKey>> joins;

    private final @Nullable String fullPassReason;

    AffectedKeys(Set<GroupKey> keys, Map<GroupKey, BsonValue> unknownOldKeyOf, Map<String, Set<GroupKey>> joins,
            @Nullable String fullPassReason) {
        this.keys = Collections.unmodifiableSet(new LinkedHashSet<>(keys));
        this.unknownOldKeyOf = Collections.unmodifiableMap(new LinkedHashMap<>(unknownOldKeyOf));
        Map<String, Set<GroupKey>> copy = new LinkedHashMap<>();
        joins.forEach((path, values) -> copy.put(path, Collections.unmodifiableSet(new LinkedHashSet<>(values))));
        this.joins = Collections.unmodifiableMap(copy);
        this.fullPassReason = fullPassReason;
    }

    /** Nothing affected. */
    public static AffectedKeys none() {
        return NONE;
    }

    /**
     * A full pass.
     * @param reason why
     * @return the result
     */
    public static AffectedKeys fullPass(String reason) {
        return new AffectedKeys(Set.of(), Map.of(), Map.of(), reason);
    }

    /**
     * Some keys.
     * @param keys the keys
     * @return the result
     */
    public static AffectedKeys ofKeys(Set<GroupKey> keys) {
        return new AffectedKeys(keys, Map.of(), Map.of(), null);
    }

    /**
     * What one change event affects in one view.
     * @param shape the view's shape
     * @param collection the collection the event is of
     * @param change the event
     * @return the affected keys, or a full pass with its reason
     */
    public static AffectedKeys of(ViewShape shape, String collection, SourceChange change) {
        return of(shape, collection, change, null);
    }

    /**
     * What one change event affects in one view, whose documents name their partition in a field:
     * an update that touches that field moved the document out of a partition, and what it had there
     * is read from the pre-image, never from the looked-up image (which may be of after later changes,
     * made in the partition it moved to, whose events name the keys in between there only).
     * @param shape the view's shape
     * @param collection the collection the event is of
     * @param change the event
     * @param partitionField the partition field of the documents, or null when no update moves one
     * @return the affected keys, or a full pass with its reason
     */
    public static AffectedKeys of(ViewShape shape, String collection, SourceChange change,
            @Nullable String partitionField) {
        if (!shape.isIncremental()) {
            return fullPass("the view is not incremental: " + shape.fullReason());
        }
        switch (change.operation()) {
            case INSERT, UPDATE, REPLACE, DELETE -> {
                // below
            }
            default -> {
                return fullPass("a " + change.operation().name().toLowerCase(Locale.ROOT) + " event of '" + collection + "'");
            }
        }
        boolean read = false;
        AffectedKeys affected = none();
        try {
            if (collection.equals(shape.primarySource())) {
                read = true;
                affected = primary(shape, collection, change, partitionField);
            }
            for (LookupLink link : shape.lookups()) {
                if (link.foreignCollection().equals(collection)) {
                    read = true;
                    affected = affected.union(foreign(link, change, partitionField));
                }
            }
        }
        catch (IllegalArgumentException unmodelled) {
            return fullPass("a change of '" + collection + "' where " + unmodelled.getMessage());
        }
        if (!read) {
            return fullPass("a change of '" + collection + "', which the pipeline reads neither as its primary source "
                    + "nor through a $lookup with localField/foreignField");
        }
        return affected;
    }

    /**
     * The id of the changed document: from the document key, else from an image — a document's
     * {@code _id} never changes, so either image names it (some servers send an update's document
     * key wrong, without {@code _id}).
     */
    private static @Nullable BsonValue documentIdOf(SourceChange change) {
        if (change.documentId() != null) {
            return change.documentId();
        }
        for (BsonDocument image : new BsonDocument[] {change.fullDocument(), change.fullDocumentBeforeChange()}) {
            if (image != null && image.get("_id") != null) {
                return image.get("_id");
            }
        }
        return null;
    }

    /** The paths whose change makes what the image looked up says of before the change unknown. */
    private static List<String> movingPaths(List<String> paths, @Nullable String partitionField) {
        if (partitionField == null) {
            return paths;
        }
        List<String> moving = new ArrayList<>(paths);
        moving.add(partitionField);
        return moving;
    }

    private static AffectedKeys primary(ViewShape shape, String collection, SourceChange change,
            @Nullable String partitionField) {
        BsonValue id = documentIdOf(change);
        // A document's _id never changes: a key in it comes from the document key, whatever the images carry
        BsonDocument byId = shape.keyIsInDocumentId() && id != null ? new BsonDocument("_id", id) : null;
        if (byId == null) {
            String uncarried = uncarried(change, shape.keyPaths());
            if (uncarried != null) {
                return fullPass("the images of a change of '" + collection + "' do not carry " + uncarried
                        + " (its change stream projected them): its key is unknown");
            }
        }
        Images images = new Images(id, byId != null ? byId : change.fullDocument(),
                byId != null ? byId : change.fullDocumentBeforeChange());
        return switch (change.operation()) {
            case INSERT -> inserted(shape, collection, images);
            case REPLACE -> replaced(shape, collection, images);
            case UPDATE -> updated(shape, collection, change, partitionField, images);
            case DELETE -> deleted(shape, collection, images);
            default -> throw new IllegalStateException("not a document change: " + change.operation());
        };
    }

    /**
     * What a change of the primary source says of its document: its id, and the images its keys are
     * read from (both the document key when every key path is in {@code _id}).
     */
    private record Images(@Nullable BsonValue id, @Nullable BsonDocument post, @Nullable BsonDocument pre) {
    }

    /** An insert: the key of the post-image. */
    private static AffectedKeys inserted(ViewShape shape, String collection, Images images) {
        if (images.post() == null) {
            return fullPass("an insert into '" + collection + "' without its document");
        }
        return ofKeys(keysOf(shape, images.post()));
    }

    /** A replace: the keys of the post-image and of the pre-image, which without one is unknown. */
    private static AffectedKeys replaced(ViewShape shape, String collection, Images images) {
        if (images.post() == null) {
            return fullPass("a replace in '" + collection + "' without its new document");
        }
        Set<GroupKey> keys = keysOf(shape, images.post());
        if (images.pre() == null) {
            return unknownOldKey(keys, images.id(), "a replace in '" + collection + "'");
        }
        keys.add(shape.keyOf(images.pre()));
        return ofKeys(keys);
    }

    /**
     * An update: the keys of the post-image and of the pre-image; without a pre-image the old key is
     * the new one unless the update touches a key path or the partition field.
     */
    private static AffectedKeys updated(ViewShape shape, String collection, SourceChange change,
            @Nullable String partitionField, Images images) {
        boolean touched = touches(change.update(), shape.keyPaths());
        if (images.post() == null) {
            if (touched || images.pre() == null) {
                return fullPass("an update in '" + collection + "' without its post-image (deleted since, or "
                        + "not looked up)" + (touched ? " that may touch the key" : "")
                        + ": the key it has now is unknown");
            }
            return ofKeys(keysOf(shape, images.pre()));
        }
        Set<GroupKey> keys = keysOf(shape, images.post());
        if (images.pre() != null) {
            // The key it had is known: counted whatever the looked-up image says
            keys.add(shape.keyOf(images.pre()));
        }
        else if (touched || touches(change.update(), movingPaths(List.of(), partitionField))) {
            return unknownOldKey(keys, images.id(), "an update in '" + collection + "'");
        }
        return ofKeys(keys);
    }

    /** A delete: the key of the pre-image, which without one is unknown. */
    private static AffectedKeys deleted(ViewShape shape, String collection, Images images) {
        if (images.pre() == null) {
            return unknownOldKey(new LinkedHashSet<>(), images.id(), "a delete in '" + collection + "'");
        }
        return ofKeys(keysOf(shape, images.pre()));
    }

    /** The key of an image, in a set more keys can join. */
    private static Set<GroupKey> keysOf(ViewShape shape, BsonDocument image) {
        Set<GroupKey> keys = new LinkedHashSet<>();
        keys.add(shape.keyOf(image));
        return keys;
    }

    /** The first path the change's images do not carry (a projected stream left it out), or null. */
    private static @Nullable String uncarried(SourceChange change, List<String> paths) {
        for (String path : paths) {
            if (!change.imagesCarry(path)) {
                return path;
            }
        }
        return null;
    }

    private static AffectedKeys unknownOldKey(Set<GroupKey> keys, @Nullable BsonValue id, String what) {
        if (id == null) {
            return fullPass(what + " without a pre-image or a document id: the key it had is unknown");
        }
        return new AffectedKeys(keys, Map.of(GroupKey.of(id), id), Map.of(), null);
    }

    private static AffectedKeys foreign(LookupLink link, SourceChange change, @Nullable String partitionField) {
        String field = link.foreignField();
        String what = "a " + change.operation().name().toLowerCase(Locale.ROOT) + " in '" + link.foreignCollection() + "'";
        BsonValue id = change.documentId();
        BsonDocument byId = field.equals("_id") && id != null ? new BsonDocument("_id", id) : null;
        if (byId == null && !change.imagesCarry(field)) {
            return fullPass("the images of a change of '" + link.foreignCollection() + "' do not carry " + field
                    + " (its change stream projected them): the rows it joins are unknown");
        }
        BsonDocument post = byId != null ? byId : change.fullDocument();
        BsonDocument pre = byId != null ? byId : change.fullDocumentBeforeChange();
        String unknownOld = what + " without a pre-image: the value of '" + field
                + "' it had, and so the rows it joined, are unknown";
        Set<GroupKey> values = new LinkedHashSet<>();
        switch (change.operation()) {
            case INSERT -> {
                if (post == null) {
                    return fullPass(what + " without its document");
                }
                joining(post.get(field), values);
            }
            case REPLACE -> {
                if (post == null) {
                    return fullPass(what + " without its new document");
                }
                if (pre == null) {
                    return fullPass(unknownOld);
                }
                joining(post.get(field), values);
                joining(pre.get(field), values);
            }
            case UPDATE -> {
                boolean touched = touches(change.update(), movingPaths(List.of(field), partitionField));
                BsonDocument now = post != null ? post : touched ? null : pre;
                if (now == null) {
                    return fullPass(what + " without its post-image (deleted since, or not looked up): the value of '"
                            + field + "' it has now is unknown");
                }
                joining(now.get(field), values);
                if (pre != null) {
                    // The value it had is known: counted whatever the looked-up image says
                    joining(pre.get(field), values);
                }
                else if (touched) {
                    return fullPass(unknownOld);
                }
            }
            case DELETE -> {
                if (pre == null) {
                    return fullPass(unknownOld);
                }
                joining(pre.get(field), values);
            }
            default -> throw new IllegalStateException("not a document change: " + change.operation());
        }
        return new AffectedKeys(Set.of(), Map.of(), Map.of(link.localPath(), values), null);
    }

    /**
     * The local values a foreign document with this value of its foreignField joins, as a
     * {@code $lookup} matches {@code {foreignField: localValue}}: more rather than fewer.
     */
    private static void joining(@Nullable BsonValue value, Set<GroupKey> values) {
        if (value == null || value.isNull()) {
            values.add(GroupKey.nullKey());
            values.add(GroupKey.of(new BsonArray()));
            return;
        }
        if (value.isArray()) {
            BsonArray array = value.asArray();
            if (array.isEmpty()) {
                values.add(GroupKey.nullKey());
            }
            for (BsonValue element : array) {
                if (element.isNull()) {
                    values.add(GroupKey.nullKey());
                    values.add(GroupKey.of(new BsonArray()));
                } else {
                    values.add(GroupKey.of(element));
                }
            }
        }
        values.add(GroupKey.of(value));
    }

    /** Whether an update may touch one of the paths: no update description touches all of them. */
    static boolean touches(@Nullable UpdatedFields update, List<String> paths) {
        if (update == null) {
            return true;
        }
        for (List<String> keys : List.of(update.updated(), update.removed(), update.truncatedArrays())) {
            for (String key : keys) {
                for (String path : paths) {
                    if (FieldPaths.touches(key, path)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Everything either affects: the union of the keys, of the unknown old keys, of the key queries;
     * a full pass when either is one (this one's reason first).
     * @param other what other changes affect
     * @return the union
     */
    public AffectedKeys union(AffectedKeys other) {
        if (fullPassReason != null) {
            return this;
        }
        if (other.fullPassReason != null) {
            return other;
        }
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        Set<GroupKey> allKeys = new LinkedHashSet<>(keys);
        allKeys.addAll(other.keys);
        Map<GroupKey, BsonValue> allUnknown = new LinkedHashMap<>(unknownOldKeyOf);
        other.unknownOldKeyOf.forEach(allUnknown::putIfAbsent);
        Map<String, Set<GroupKey>> allJoins = new LinkedHashMap<>();
        joins.forEach((path, values) -> allJoins.put(path, new LinkedHashSet<>(values)));
        other.joins.forEach((path, values) -> allJoins.computeIfAbsent(path, key -> new LinkedHashSet<>()).addAll(values));
        return new AffectedKeys(allKeys, allUnknown, allJoins, null);
    }

    /**
     * The keys whose rows may change.
     * @return the keys, unmodifiable
     */
    public Set<GroupKey> keys() {
        return keys;
    }

    /**
     * The ids of primary documents whose key before the change is unknown (no pre-image): their old
     * rows are affected too. Find their old keys elsewhere (stored rows that record the documents
     * they come from), or run a full pass.
     * @return the document ids, each once as MongoDB compares ids
     */
    public Set<BsonValue> unknownOldKeyOf() {
        Set<BsonValue> ids = new LinkedHashSet<>();
        unknownOldKeyOf.values().forEach(id -> ids.add(GroupKey.copy(id)));
        return Collections.unmodifiableSet(ids);
    }

    /**
     * Filters on the primary source for the foreign changes, one per local path of a
     * {@code $lookup} ({@code {<localPath>: {$in: [every value that joins a changed document]}}}):
     * the keys ({@link ViewShape#keyOf}) of the primary documents a filter matches are affected
     * too. Run them within the view's partition (through the scope guard, as the pipeline is),
     * projecting {@link ViewShape#keyProjection()}, when the pass runs.
     * @return new filters
     */
    public List<BsonDocument> keyQueries() {
        List<BsonDocument> queries = new ArrayList<>(joins.size());
        joins.forEach((path, values) -> {
            BsonArray in = new BsonArray(new ArrayList<>(values.size()));
            values.forEach(value -> in.add(value.value()));
            queries.add(new BsonDocument(path, new BsonDocument("$in", in)));
        });
        return queries;
    }

    /** The keys, as held (immutable), for {@link KeyMarks}. */
    Set<GroupKey> heldKeys() {
        return keys;
    }

    /** The ids of unknown old keys by their key, as held (immutable), for {@link KeyMarks}. */
    Map<GroupKey, BsonValue> heldUnknownOldKeyOf() {
        return unknownOldKeyOf;
    }

    /** Per local path, the values the key queries look for, as held (immutable), for {@link KeyMarks}. */
    Map<String, Set<GroupKey>> heldJoins() {
        return joins;
    }

    /**
     * Why nothing can be said, so the pass must recompute the whole partition.
     * @return the reason, or null when the other parts say what is affected
     */
    public @Nullable String fullPassReason() {
        return fullPassReason;
    }

    /** Whether the pass must recompute the whole partition. */
    public boolean needsFullPass() {
        return fullPassReason != null;
    }

    /** Whether nothing is affected (and no full pass is needed). */
    public boolean isEmpty() {
        return fullPassReason == null && keys.isEmpty() && unknownOldKeyOf.isEmpty() && joins.isEmpty();
    }

    @Override
    public String toString() {
        if (fullPassReason != null) {
            return "AffectedKeys[full pass: " + fullPassReason + "]";
        }
        return "AffectedKeys[keys " + keys + ", unknown old key of " + unknownOldKeyOf.values() + ", key queries "
                + keyQueries() + "]";
    }
}
