package dev.materializer.sample.views;

import java.util.List;
import java.util.regex.Pattern;

import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * One view every tenant gets, as the resource {@code shop/views.json} defines it: the view document
 * without its {@code _id} and partition, which {@link ViewInstaller} adds per tenant.
 *
 * @param name the name of the view within a tenant (its id is {@code <tenant>:<name>})
 * @param description what the view shows, kept in the view document for people
 * @param collections the sources; the pipeline runs on the first
 * @param pipeline the stages
 * @param targetCollection the collection of the rows, shared by every tenant
 * @param sourceFields per source, the field paths the pipeline reads, or null when not declared
 */
public record ViewTemplate(String name, String description, List<String> collections, List<Document> pipeline,
        String targetCollection, @Nullable Document sourceFields) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");

    /** Checks the parts the shop relies on; the engine checks the rest when it reads the view. */
    public ViewTemplate {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("view template name must be lower-case letters, digits or '-', was '"
                    + name + "'");
        }
        if (collections.isEmpty()) {
            throw new IllegalArgumentException("view template '" + name + "' has no collections");
        }
        collections = List.copyOf(collections);
        pipeline = List.copyOf(pipeline);
    }

    /**
     * Reads a template from its JSON document.
     * @param json the template as parsed from the resource
     * @return the template
     * @throws IllegalArgumentException when a field is missing or mistyped, naming it
     */
    static ViewTemplate from(Document json) {
        String name = text(json, "name", "?");
        try {
            return new ViewTemplate(name, json.get("description", ""), json.getList("collections", String.class),
                    json.getList("pipeline", Document.class), text(json, "targetCollection", name),
                    json.get("sourceFields", Document.class));
        }
        catch (ClassCastException | NullPointerException ex) {
            throw new IllegalArgumentException("view template '" + name + "' needs name, collections (strings), "
                    + "pipeline (documents) and targetCollection; sourceFields, when present, is a document", ex);
        }
    }

    private static String text(Document json, String field, String template) {
        Object value = json.get(field);
        if (!(value instanceof String text) || text.isEmpty()) {
            throw new IllegalArgumentException("view template '" + template + "' needs a non-empty text in '" + field
                    + "', was " + value);
        }
        return text;
    }
}
