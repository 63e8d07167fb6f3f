package dev.materializer.core.view;

import org.bson.BsonValue;

/**
 * Names one view: its partition and the text of its {@code _id}. An {@code _id} is unique in the
 * views collection, so the id alone finds the view; the partition makes keys readable in logs and
 * URLs, and lets a lookup check that the view still belongs to the partition asked for.
 *
 * @param partition the partition (tenant) of the view
 * @param id the text of the view's {@code _id}: the string itself, or the hex of an ObjectId, or
 *     the relaxed Extended JSON of any other value
 */
public record ViewKey(String partition, String id) {

    /**
     * The key of a view whose {@code _id} is any BSON value.
     * @param partition the partition of the view
     * @param id the {@code _id} of the view document
     * @return the key
     */
    public static ViewKey of(String partition, BsonValue id) {
        return new ViewKey(partition, idText(id));
    }

    /**
     * The text of a view id as users see it (in URLs and logs).
     * @param id the {@code _id} of the view document
     * @return the string, the hex of an ObjectId, or relaxed Extended JSON
     */
    public static String idText(BsonValue id) {
        if (id.isString()) {
            return id.asString().getValue();
        }
        if (id.isObjectId()) {
            return id.asObjectId().getValue().toHexString();
        }
        return new org.bson.BsonDocument("id", id)
            .toJson(org.bson.json.JsonWriterSettings.builder().outputMode(org.bson.json.JsonMode.RELAXED).build())
            .replaceFirst("^\\{\\s*\"id\"\\s*:\\s*", "")
            .replaceFirst("\\s*}$", "");
    }

    @Override
    public String toString() {
        return partition + "/" + id;
    }
}
