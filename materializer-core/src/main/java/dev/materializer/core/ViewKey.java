package dev.materializer.core;

import java.util.regex.Pattern;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Names one view: its partition and the text of its {@code _id}. An {@code _id} is unique in the
 * views collection, so the id alone finds the view; the partition makes keys readable in logs and
 * URLs, and lets a lookup check that the view still belongs to the partition asked for.
 *
 * <p>The text is exact: two different {@code _id}s never share a text, whatever their types
 * (the string {@code "1"} and the number {@code 1}, an ObjectId and the string of its hex), so the
 * registry, the endpoint and the logs never take one view for another.
 *
 * @param partition the partition (tenant) of the view
 * @param id the text of the view's {@code _id}, as {@link #idText(BsonValue)} makes it
 */
public record ViewKey(String partition, String id) {

    /** Strings that read as the text of another type: numbers, words of JSON, ObjectId hex. */
    private static final Pattern LOOKS_TYPED = Pattern.compile(
            "-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?|true|false|null|[0-9a-fA-F]{24}|[{\\[\"].*|", Pattern.DOTALL);

    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder()
        .outputMode(JsonMode.EXTENDED)
        .build();

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
     * The text of a view id as users see it (in URLs and logs): a string as it is, unless it would
     * read as a value of another type (a number, {@code true}, 24 hex digits, text starting with
     * a brace, bracket or quote, or the empty string), then as a JSON string in quotes; an ObjectId
     * as its hex; a 64-bit integer as canonical Extended JSON ({@code {"$numberLong": "1"}}), so it
     * differs from a 32-bit one; any other value as relaxed Extended JSON.
     * @param id the {@code _id} of the view document
     * @return the text, different for different ids
     */
    public static String idText(BsonValue id) {
        if (id.isString()) {
            String text = id.asString().getValue();
            return LOOKS_TYPED.matcher(text).matches() ? json(id, RELAXED) : text;
        }
        if (id.isObjectId()) {
            return id.asObjectId().getValue().toHexString();
        }
        return json(id, id.isInt64() ? CANONICAL : RELAXED);
    }

    private static String json(BsonValue value, JsonWriterSettings settings) {
        return new BsonDocument("id", value).toJson(settings)
            .replaceFirst("^\\{\\s*\"id\"\\s*:\\s*", "")
            .replaceFirst("\\s*}$", "");
    }

    @Override
    public String toString() {
        return partition + "/" + id;
    }
}
