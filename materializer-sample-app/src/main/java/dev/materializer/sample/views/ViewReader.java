package dev.materializer.sample.views;

import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import com.mongodb.client.model.Sorts;
import dev.materializer.core.view.ViewFilter;
import dev.materializer.sample.InvalidInputException;
import dev.materializer.sample.MaterializerFields;
import dev.materializer.sample.NotFoundException;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

/**
 * Reads views the way every reader of a materialized view should: first the view document, then
 * its target through {@link ViewFilter} — the view's partition and its current generation — so a
 * reader sees one whole generation and never one the engine is still writing. A generation that a
 * flip replaces stays readable for the engine's generation grace, long enough to finish a read.
 * Thread-safe.
 */
@Component
public class ViewReader {

    /** The most rows one read returns. */
    public static final int MAX_LIMIT = 10_000;

    private static final Pattern SORT_FIELD = Pattern.compile("[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)*");

    private final MongoTemplate mongo;

    private final MaterializerFields fields;

    ViewReader(MongoTemplate mongo, MaterializerFields fields) {
        this.mongo = mongo;
        this.fields = fields;
    }

    /** Every tenant that has views, with the names of its views, in name order. */
    public Map<String, List<String>> tenants() {
        Map<String, List<String>> tenants = new TreeMap<>();
        for (Document view : this.mongo.getCollection(this.fields.viewsCollection()).find().sort(Sorts.ascending("_id"))) {
            if (view.get(this.fields.partitionField()) instanceof String tenant) {
                tenants.computeIfAbsent(tenant, key -> new ArrayList<>()).add(name(tenant, view.get("_id")));
            }
        }
        return tenants;
    }

    /**
     * The views of a tenant.
     * @param tenant a checked tenant name
     * @return its views, by id
     */
    public List<ViewSummary> views(String tenant) {
        List<ViewSummary> views = new ArrayList<>();
        for (Document view : this.mongo.getCollection(this.fields.viewsCollection())
            .find(eq(this.fields.partitionField(), tenant))
            .sort(Sorts.ascending("_id"))) {
            views.add(summary(tenant, view));
        }
        return views;
    }

    /**
     * The rows of a view in its current generation.
     * @param tenant a checked tenant name
     * @param name the view's name within the tenant
     * @param sort a field of the rows to sort by, {@code -} in front for descending, {@code id} for the
     *     row's key; null for the key order
     * @param limit the most rows to return, 1 to {@value #MAX_LIMIT}
     * @return the rows
     * @throws NotFoundException when the tenant has no such view
     * @throws InvalidInputException when the sort or limit is not allowed
     */
    public ViewRows rows(String tenant, String name, @Nullable String sort, int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidInputException("limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
        }
        Bson order = order(sort);
        String id = ViewInstaller.viewId(tenant, name);
        Document view = this.mongo.getCollection(this.fields.viewsCollection())
            .find(and(eq("_id", id), eq(this.fields.partitionField(), tenant)))
            .first();
        if (view == null) {
            throw new NotFoundException("tenant '" + tenant + "' has no view '" + name + "'");
        }
        Bson current = ViewFilter.of(view, this.fields.partitionField(), this.fields.statusField());
        List<ViewRow> rows = new ArrayList<>();
        for (Document row : this.mongo.getCollection(view.getString("targetCollection"))
            .find(current)
            .sort(order)
            .limit(limit)) {
            rows.add(row(row));
        }
        Document status = status(view);
        return new ViewRows(id, status.getString("state"), generationOf(status.get("generation")), rows);
    }

    private static Bson order(@Nullable String sort) {
        if (sort == null || sort.isBlank()) {
            return Sorts.ascending(ViewFilter.ROW_FIELD);
        }
        boolean descending = sort.startsWith("-");
        String field = descending ? sort.substring(1) : sort;
        if (!SORT_FIELD.matcher(field).matches()) {
            throw new InvalidInputException("sort must be a field of the rows such as 'revenue' or '-revenue' "
                    + "(or 'id' for the row's key), was '" + sort + "'");
        }
        String path = field.equals("id") ? ViewFilter.ROW_FIELD : field;
        return descending ? Sorts.descending(path, ViewFilter.ROW_FIELD) : Sorts.ascending(path, ViewFilter.ROW_FIELD);
    }

    private ViewRow row(Document stored) {
        // Each stored version keeps the row's own key beside the engine's stored _id
        Object id = stored.containsKey(ViewFilter.ROW_FIELD) ? stored.get(ViewFilter.ROW_FIELD) : stored.get("_id");
        Map<String, @Nullable Object> content = new LinkedHashMap<>();
        stored.forEach((field, value) -> {
            if (!isEngineField(field)) {
                content.put(field, PlainJson.of(value));
            }
        });
        return new ViewRow(PlainJson.of(id), content);
    }

    private boolean isEngineField(String field) {
        return field.equals("_id") || field.equals(this.fields.partitionField())
                || field.equals(ViewFilter.GENERATION_FIELD) || field.equals(ViewFilter.HASH_FIELD)
                || field.equals(ViewFilter.FROM_FIELD) || field.equals(ViewFilter.TO_FIELD)
                || field.equals(ViewFilter.ROW_FIELD);
    }

    private ViewSummary summary(String tenant, Document view) {
        Document status = status(view);
        Object at = status.get("at");
        return new ViewSummary(String.valueOf(view.get("_id")), name(tenant, view.get("_id")),
                view.get("description") instanceof String text ? text : null,
                view.get("collections") instanceof List<?> sources ? sources.stream().map(String::valueOf).toList() : List.of(),
                view.get("targetCollection") instanceof String target ? target : null,
                status.get("state") instanceof String state ? state : null,
                status.get("lastError") instanceof String error ? error : null,
                generationOf(status.get("generation")),
                at instanceof Date date ? date.toInstant() : null);
    }

    private Document status(Document view) {
        return view.get(this.fields.statusField()) instanceof Document status ? status : new Document();
    }

    private static String name(String tenant, @Nullable Object id) {
        String text = String.valueOf(id);
        return text.startsWith(tenant + ":") ? text.substring(tenant.length() + 1) : text;
    }

    /** The generation's number; the hex id of a generation written by an engine before row versions. */
    private static @Nullable String generationOf(@Nullable Object generation) {
        if (generation instanceof Long || generation instanceof Integer) {
            return generation.toString();
        }
        return generation instanceof ObjectId id ? id.toHexString() : null;
    }
}
