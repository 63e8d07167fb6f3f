package dev.materializer.core.view;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * The filter a reader of a target applies to read one view: its partition and its current
 * generation, so every read sees one whole generation, never a half-written one. Before the first
 * run it matches nothing.
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

    /** The field of a row that names its generation. */
    public static final String GENERATION_FIELD = "_viewGen";

    /** The field of a row that keeps the hash of its content. */
    public static final String HASH_FIELD = "_viewHash";

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
        Object generation = status instanceof Document document ? document.get("generation") : null;
        return new Document(partitionField, partition).append(GENERATION_FIELD,
                generation instanceof ObjectId ? generation : new Document("$in", java.util.List.of()));
    }

    /**
     * The filter of a partition's rows in a generation.
     * @param partitionField the partition field
     * @param partition the partition
     * @param generation the current generation, or null before the first run
     * @return the filter
     */
    public static BsonDocument of(String partitionField, String partition, @Nullable ObjectId generation) {
        BsonValue generationMatch = generation == null ? new BsonDocument("$in", new BsonArray())
                : new org.bson.BsonObjectId(generation);
        return new BsonDocument(partitionField, new BsonString(partition)).append(GENERATION_FIELD, generationMatch);
    }
}
