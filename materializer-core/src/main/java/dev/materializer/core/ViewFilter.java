package dev.materializer.core;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

/**
 * The filter a reader of a target applies to read one view: its partition and its current
 * generation, so every read sees one whole generation, never a half-written one. Before the first
 * run it matches nothing, and so it does after the view was given another target or moved to
 * another partition, until its first pass there (its generation was written elsewhere: see
 * {@link GenerationPlace}).
 *
 * <p>A target keeps versions of rows: each stored version names the generation it appeared in
 * ({@value #FROM_FIELD}) and the one that superseded it ({@value #TO_FIELD}, {@link #OPEN} while
 * it is current). The rows of generation {@code g} are the versions with
 * {@code _viewFrom <= g < _viewTo}; a pass writing generation {@code g+1} only adds versions above
 * {@code g} and closes versions at {@code g+1}, so what a reader of {@code g} sees never moves.
 *
 * <pre>{@code
 * Document view = views.find(eq("_id", "revenue")).first();
 * targets.find(ViewFilter.of(view)).forEach(...);
 * }</pre>
 */
public final class ViewFilter {

    /** The default field of a view document and of its rows that names the partition. */
    public static final String DEFAULT_PARTITION_FIELD = "_part";

    /** The default field of a view document that holds its status. */
    public static final String DEFAULT_STATUS_FIELD = "_materializerStatus";

    /** The field of a row version that names the generation it appeared in. */
    public static final String FROM_FIELD = "_viewFrom";

    /** The field of a row version that names the generation that superseded it. */
    public static final String TO_FIELD = "_viewTo";

    /** The field of a row version that keeps the row's own {@code _id}, as the pipeline gave it. */
    public static final String ROW_FIELD = "_viewRow";

    /** The field of a row that keeps the hash of its content. */
    public static final String HASH_FIELD = "_viewHash";

    /**
     * The field of a row written by an engine before row versions: its generation's id. Such rows
     * are read until the first pass of this engine rebuilds the view, then removed.
     */
    public static final String GENERATION_FIELD = "_viewGen";

    /** The {@value #TO_FIELD} of a current version: no generation superseded it yet. */
    public static final long OPEN = Long.MAX_VALUE;

    private ViewFilter() {
    }

    /**
     * The filter of a view document read with the default field names.
     * @param view the view document, with its status field
     * @return the filter of its rows in the current generation
     */
    public static Bson of(Document view) {
        return of(view, DEFAULT_PARTITION_FIELD, DEFAULT_STATUS_FIELD);
    }

    /**
     * The filter of a view document.
     * @param view the view document, with its status field
     * @param partitionField the partition field
     * @param statusField the status field
     * @return the filter of its rows in the current generation
     * @throws IllegalArgumentException when the document has no partition
     */
    public static Bson of(Document view, String partitionField, String statusField) {
        Object partition = view.get(partitionField);
        if (!(partition instanceof String text) || text.isEmpty()) {
            // {partition: null} would also match rows without the field: refuse rather than over-read.
            throw new IllegalArgumentException("the view document " + view.get("_id") + " has no partition in '"
                    + partitionField + "' (a non-empty string is needed)");
        }
        Object status = view.get(statusField);
        Document stored = status instanceof Document document ? document : null;
        Object generation = stored == null ? null : stored.get(Generation.STATUS_FIELD);
        GenerationPlace place = GenerationPlace.of(stored);
        // A document read without its target (a projection) is taken to name the one its generation was written in
        String target = view.get("targetCollection") instanceof String name ? name
                : place == null ? "" : place.collection();
        if (generation != null && !GenerationPlace.fits(place, target, text)) {
            // Written in another target or partition: here it names no rows yet
            return of(partitionField, text, null);
        }
        return of(partitionField, text, Generation.fromValue(generation));
    }

    /**
     * The filter of a partition's rows in a generation.
     * @param partitionField the partition field
     * @param partition the partition
     * @param generation the current generation, or null before the first run
     * @return the filter
     */
    public static BsonDocument of(String partitionField, String partition, @Nullable Generation generation) {
        BsonDocument filter = new BsonDocument(partitionField, new BsonString(partition));
        filter.putAll(rowsOf(generation));
        return filter;
    }

    /**
     * Whether a document is a row version the engine wrote: it has {@value #TO_FIELD}, which no
     * source document has (the scope guard reads such documents as rows of a view too).
     * @param document a document, or null
     * @return true for a row version
     */
    public static boolean isRowVersion(@Nullable BsonDocument document) {
        return document != null && document.containsKey(TO_FIELD);
    }

    /**
     * The terms of a filter that select the rows of a generation, without the partition: the
     * versions it sees, the rows of a legacy generation by their id, nothing before the first run.
     * @param generation the generation, or null before the first run
     * @return a new document of filter terms
     */
    public static BsonDocument rowsOf(@Nullable Generation generation) {
        if (generation == null) {
            return new BsonDocument(TO_FIELD, new BsonDocument("$in", new BsonArray()));
        }
        if (generation.isLegacy()) {
            return new BsonDocument(GENERATION_FIELD, new BsonObjectId(generation.legacy()));
        }
        BsonInt64 number = new BsonInt64(generation.number());
        return new BsonDocument(TO_FIELD, new BsonDocument("$gt", number))
            .append(FROM_FIELD, new BsonDocument("$lte", number));
    }
}
