package dev.materializer.sample.views;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.bson.Document;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.stereotype.Component;

/**
 * The views of every tenant, read once from the resource {@code shop/views.json}: a JSON array of
 * {@link ViewTemplate}s, in MongoDB's Extended JSON so pipelines read as they do in the shell.
 * Immutable and thread-safe.
 */
@Component
public class ViewTemplates {

    /** The resource of the templates. */
    public static final String RESOURCE = "shop/views.json";

    private final List<ViewTemplate> templates;

    ViewTemplates() {
        this(new ClassPathResource(RESOURCE));
    }

    ViewTemplates(Resource resource) {
        this.templates = read(resource);
    }

    /** The templates, in the order of the resource. */
    public List<ViewTemplate> all() {
        return this.templates;
    }

    private static List<ViewTemplate> read(Resource resource) {
        String json;
        try (InputStream in = resource.getInputStream()) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot read the view templates " + resource, ex);
        }
        List<ViewTemplate> templates = Document.parse("{\"views\": " + json + "}")
            .getList("views", Document.class)
            .stream()
            .map(ViewTemplate::from)
            .toList();
        Set<String> names = new HashSet<>();
        for (ViewTemplate template : templates) {
            if (!names.add(template.name())) {
                throw new IllegalArgumentException("view template '" + template.name() + "' appears twice in " + resource);
            }
        }
        return templates;
    }
}
