package dev.materializer.spring.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.bson.BsonArray;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.aggregation.Aggregation;

/**
 * A view every tenant can get: the definition of a view document without its tenant. Declare it as a
 * bean and {@link ViewTemplates} installs it for a tenant as the view document
 * {@code {_id: <id pattern with the tenant>, <partition field>: <tenant>, collections, pipeline,
 * targetCollection, sourceFields?, incremental?, <your fields>}}.
 *
 * <pre>{@code
 * @Bean
 * ViewTemplate revenue() {
 *     return ViewTemplate.withId("{tenant}:revenue")
 *         .collections("orders")
 *         .pipelineJson("[{$group: {_id: '$product', revenue: {$sum: '$price'}}}]")
 *         .targetCollection("revenue_by_product")
 *         .sourceFields("orders", "product", "price")
 *         .build();
 * }
 * }</pre>
 *
 * <p>The id pattern holds {@value #TENANT} exactly once, so the views of different tenants have
 * different ids. Immutable and thread-safe; the starter checks each template bean with the engine's
 * own parser and scope guard when the context starts.
 */
public final class ViewTemplate {

    /** The placeholder of the tenant in an id pattern. */
    public static final String TENANT = "{tenant}";

    /** The fields of a view document a template may not set as its own: they are the definition's or the engine's. */
    static final Set<String> DEFINITION_FIELDS = Set.of("_id", "collections", "pipeline", "targetCollection",
            "sourceFields", "incremental");

    private final String idPattern;

    private final List<String> collections;

    private final List<Document> pipeline;

    private final String targetCollection;

    private final @Nullable Map<String, List<String>> sourceFields;

    private final @Nullable Object incremental;

    private final Map<String, Object> fields;

    private ViewTemplate(Builder builder) {
        this.idPattern = builder.idPattern;
        this.collections = List.copyOf(builder.collections);
        this.pipeline = builder.pipeline.stream().map(ViewTemplate::copy).toList();
        this.targetCollection = Objects.requireNonNull(builder.targetCollection,
                () -> "view template '" + builder.idPattern + "' has no targetCollection");
        this.sourceFields = builder.sourceFields == null ? null : copyOf(builder.sourceFields);
        this.incremental = builder.incremental;
        this.fields = Map.copyOf(builder.fields);
    }

    /**
     * Starts a template.
     * @param idPattern the id of its views, with {@value #TENANT} where the tenant goes, e.g. {@code "{tenant}:revenue"}
     * @return a builder
     * @throws IllegalArgumentException when the pattern does not hold {@value #TENANT} exactly once
     */
    public static Builder withId(String idPattern) {
        return new Builder(idPattern);
    }

    /** The id pattern, with {@value #TENANT}. */
    public String idPattern() {
        return this.idPattern;
    }

    /**
     * The id of the tenant's view.
     * @param tenant the tenant
     * @return the id pattern with the tenant in place of {@value #TENANT}
     */
    public String idFor(String tenant) {
        return this.idPattern.replace(TENANT, tenant);
    }

    /**
     * The tenant of a view id of this template.
     * @param id a view id
     * @return the tenant, or null when the id is not one of this template's
     */
    public @Nullable String tenantOf(String id) {
        int at = this.idPattern.indexOf(TENANT);
        String prefix = this.idPattern.substring(0, at);
        String suffix = this.idPattern.substring(at + TENANT.length());
        if (id.length() <= prefix.length() + suffix.length() || !id.startsWith(prefix) || !id.endsWith(suffix)) {
            return null;
        }
        return id.substring(prefix.length(), id.length() - suffix.length());
    }

    /** The sources; the pipeline runs on the first. */
    public List<String> collections() {
        return this.collections;
    }

    /** The stages, copies. */
    public List<Document> pipeline() {
        return this.pipeline.stream().map(ViewTemplate::copy).toList();
    }

    /** The target collection, shared by the views of every tenant. */
    public String targetCollection() {
        return this.targetCollection;
    }

    /** Per source, the field paths the pipeline reads, or null when not declared. */
    public @Nullable Map<String, List<String>> sourceFields() {
        return this.sourceFields;
    }

    /** The {@code incremental} field ({@code Boolean} or {@code {key: ...}}), or null when not declared. */
    public @Nullable Object incremental() {
        return this.incremental;
    }

    /** The other fields of the view documents (a description, an owner): not part of the definition. */
    public Map<String, Object> fields() {
        return this.fields;
    }

    /**
     * The view document of a tenant, without a status.
     * @param tenant the tenant
     * @param partitionField the field that names the tenant
     * @return a new document
     */
    public Document documentFor(String tenant, String partitionField) {
        Document document = new Document("_id", idFor(tenant)).append(partitionField, tenant);
        document.putAll(definition());
        this.fields.forEach(document::append);
        return document;
    }

    /** The definition fields of the view documents, absent optional ones left out. */
    Document definition() {
        Document definition = new Document("collections", this.collections)
            .append("pipeline", pipeline())
            .append("targetCollection", this.targetCollection);
        if (this.sourceFields != null) {
            definition.append("sourceFields", new Document(new LinkedHashMap<>(this.sourceFields)));
        }
        if (this.incremental != null) {
            definition.append("incremental", this.incremental instanceof Document key ? copy(key) : this.incremental);
        }
        return definition;
    }

    @Override
    public String toString() {
        return "ViewTemplate[" + this.idPattern + " -> " + this.targetCollection + "]";
    }

    private static final JsonWriterSettings EXACT = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    static Document copy(Document document) {
        // Stages are mutable documents: a deep copy, through canonical Extended JSON so every BSON type stays.
        return Document.parse(document.toJson(EXACT));
    }

    private static Map<String, List<String>> copyOf(Map<String, List<String>> fields) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        fields.forEach((source, paths) -> copy.put(source, List.copyOf(paths)));
        return Collections.unmodifiableMap(copy);
    }

    /** Builds a {@link ViewTemplate}; not thread-safe. */
    public static final class Builder {

        private final String idPattern;

        private final List<String> collections = new ArrayList<>();

        private List<Document> pipeline = List.of();

        private @Nullable String targetCollection;

        private @Nullable Map<String, List<String>> sourceFields;

        private @Nullable Object incremental;

        private final Map<String, Object> fields = new LinkedHashMap<>();

        private Builder(String idPattern) {
            int first = idPattern.indexOf(TENANT);
            if (first < 0 || idPattern.indexOf(TENANT, first + 1) >= 0) {
                throw new IllegalArgumentException("a view template's id pattern must hold " + TENANT
                        + " exactly once (the views of different tenants need different ids), was '" + idPattern + "'");
            }
            this.idPattern = idPattern;
        }

        /**
         * The sources; the pipeline runs on the first.
         * @param collections the source collections
         * @return this builder
         */
        public Builder collections(String... collections) {
            this.collections.clear();
            this.collections.addAll(Arrays.asList(collections));
            return this;
        }

        /**
         * The stages, as written (no mapping).
         * @param stages the pipeline
         * @return this builder
         */
        public Builder pipeline(List<? extends Bson> stages) {
            List<Document> copies = new ArrayList<>(stages.size());
            for (Bson stage : stages) {
                copies.add(stage instanceof Document document ? copy(document)
                        : Document.parse(stage.toBsonDocument().toJson(EXACT)));
            }
            this.pipeline = copies;
            return this;
        }

        /**
         * The stages, from a JSON array in MongoDB's Extended JSON (as the shell writes them).
         * @param json the pipeline, e.g. {@code "[{$match: {quantity: {$gt: 0}}}]"}
         * @return this builder
         * @throws IllegalArgumentException when the text is not an array of documents
         */
        public Builder pipelineJson(String json) {
            BsonArray array;
            try {
                array = BsonArray.parse(json);
            }
            catch (RuntimeException ex) {
                throw new IllegalArgumentException("the pipeline of view template '" + this.idPattern
                        + "' is not a JSON array: " + ex.getMessage(), ex);
            }
            List<Document> stages = new ArrayList<>(array.size());
            for (BsonValue stage : array) {
                if (!stage.isDocument()) {
                    throw new IllegalArgumentException("the pipeline of view template '" + this.idPattern
                            + "' must be an array of documents, has " + stage.getBsonType());
                }
                stages.add(Document.parse(stage.asDocument().toJson(EXACT)));
            }
            this.pipeline = stages;
            return this;
        }

        /**
         * The stages of a Spring Data aggregation, rendered with {@link Aggregation#DEFAULT_CONTEXT}
         * (field names as written: no entity mapping).
         * @param aggregation the aggregation
         * @return this builder
         */
        public Builder aggregation(Aggregation aggregation) {
            return pipeline(aggregation.toPipeline(Aggregation.DEFAULT_CONTEXT));
        }

        /**
         * The target collection.
         * @param targetCollection where the rows go
         * @return this builder
         */
        public Builder targetCollection(String targetCollection) {
            this.targetCollection = targetCollection;
            return this;
        }

        /**
         * Declares the field paths the pipeline reads in one source (call once per source).
         * @param source a source collection
         * @param paths its field paths
         * @return this builder
         */
        public Builder sourceFields(String source, String... paths) {
            if (this.sourceFields == null) {
                this.sourceFields = new LinkedHashMap<>();
            }
            this.sourceFields.put(source, List.of(paths));
            return this;
        }

        /**
         * {@code incremental: false} always recomputes the whole view; {@code true} asks for key-scoped passes.
         * @param incremental the declaration
         * @return this builder
         */
        public Builder incremental(boolean incremental) {
            this.incremental = incremental;
            return this;
        }

        /**
         * {@code incremental: {key: ...}}: the key the engine must prove.
         * @param paths one field path or several
         * @return this builder
         */
        public Builder incrementalKey(String... paths) {
            this.incremental = new Document("key", paths.length == 1 ? paths[0] : List.of(paths));
            return this;
        }

        /**
         * Another field of the view documents, kept for people (a description, an owner).
         * @param name the field, not one of the definition's, the partition's or the status'
         * @param value its value
         * @return this builder
         */
        public Builder field(String name, Object value) {
            if (DEFINITION_FIELDS.contains(name)) {
                throw new IllegalArgumentException("view template '" + this.idPattern + "' sets '" + name
                        + "' with field(...); use its own method");
            }
            this.fields.put(name, Objects.requireNonNull(value,
                    () -> "view template '" + this.idPattern + "' sets field '" + name + "' to null"));
            return this;
        }

        /**
         * The template.
         * @return a new template
         * @throws NullPointerException when no target collection was given
         */
        public ViewTemplate build() {
            return new ViewTemplate(this);
        }
    }
}
