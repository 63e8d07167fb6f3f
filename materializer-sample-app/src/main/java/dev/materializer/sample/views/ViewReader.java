package dev.materializer.sample.views;

import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import com.mongodb.client.model.Sorts;
import dev.materializer.core.Generation;
import dev.materializer.sample.InvalidInputException;
import dev.materializer.sample.MaterializerFields;
import dev.materializer.sample.NotFoundException;
import dev.materializer.spring.data.MaterializedViewNotFoundException;
import dev.materializer.spring.data.MaterializedViewRows;
import dev.materializer.spring.data.MaterializedViews;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

import static com.mongodb.client.model.Filters.eq;

/**
 * Reads views: the list of a tenant's view documents with their status, and the rows of one through
 * the starter's {@link MaterializedViews}, which reads the way every reader of a materialized view
 * should — first the view document, then its target through {@code ViewFilter} (the view's
 * partition and its current generation) — so a reader sees one whole generation and never one the
 * engine is still writing. A generation that a flip replaces stays readable for the engine's
 * generation grace, long enough to finish a read. Thread-safe.
 */
@Component
public class ViewReader {

    /** The most rows one read returns. */
    public static final int MAX_LIMIT = 10_000;

    private static final Pattern SORT_FIELD = Pattern.compile("[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)*");

    private final MongoTemplate mongo;

    private final MaterializerFields fields;

    private final MaterializedViews views;

    ViewReader(MongoTemplate mongo, MaterializerFields fields, MaterializedViews views) {
        this.mongo = mongo;
        this.fields = fields;
        this.views = views;
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
        Query query = new Query().limit(limit);
        Sort order = order(sort);
        if (order != null) {
            query.with(order);
        }
        String id = ShopViews.viewId(tenant, name);
        MaterializedViewRows<Document> read;
        try {
            // The reader adds the current generation of the tenant and breaks ties by the row's key.
            read = this.views.read(tenant, id, query, Document.class);
        }
        catch (MaterializedViewNotFoundException ex) {
            throw new NotFoundException("tenant '" + tenant + "' has no view '" + name + "'");
        }
        List<ViewRow> rows = read.rows().stream().map(ViewReader::row).toList();
        return new ViewRows(id, read.state(), generationOf(read.generation()), rows);
    }

    private static @Nullable Sort order(@Nullable String sort) {
        if (sort == null || sort.isBlank()) {
            return null;
        }
        boolean descending = sort.startsWith("-");
        String field = descending ? sort.substring(1) : sort;
        if (!SORT_FIELD.matcher(field).matches()) {
            throw new InvalidInputException("sort must be a field of the rows such as 'revenue' or '-revenue' "
                    + "(or 'id' for the row's key), was '" + sort + "'");
        }
        // A row read as a document has its key in _id, which the reader maps to the stored key.
        String path = field.equals("id") ? "_id" : field;
        return Sort.by(descending ? Sort.Direction.DESC : Sort.Direction.ASC, path);
    }

    private static ViewRow row(Document row) {
        Map<String, @Nullable Object> content = new LinkedHashMap<>();
        row.forEach((field, value) -> {
            if (!field.equals("_id")) {
                content.put(field, PlainJson.of(value));
            }
        });
        return new ViewRow(PlainJson.of(row.get("_id")), content);
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
        Generation read = Generation.fromValue(generation);
        return read == null ? null : read.toString();
    }
}
