package dev.materializer.core.view;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Test fixture: builds view documents and definitions with short, valid defaults, so a test states
 * only what it is about.
 *
 * <pre>{@code
 * ViewDefinition totals = Views.view("totals").reads("orders").writes("totals").definition();
 * BsonDocument document = Views.view("totals").document();
 * }</pre>
 */
public final class Views {

    /** The partition of the fixture's views unless set. */
    public static final String PARTITION = "tenant-1";

    /** The parser with the default field names. */
    public static final ViewDefinitionParser PARSER = new ViewDefinitionParser("_part", "_aggregations");

    private Views() {
    }

    /**
     * A view that reads {@code orders} and writes {@code <id>_out} with a one-stage pipeline.
     * @param id the {@code _id}, a string
     * @return a builder to change it
     */
    public static Builder view(String id) {
        return new Builder(new BsonString(id));
    }

    /** Builds one view document or definition; not thread-safe. */
    public static final class Builder {

        private final BsonValue id;

        private String partition = PARTITION;

        private List<String> sources = List.of("orders");

        private final List<BsonDocument> pipeline = new ArrayList<>(List.of(BsonDocument.parse("{$match: {}}")));

        private String target;

        private final Map<String, List<String>> sourceFields = new LinkedHashMap<>();

        private Builder(BsonValue id) {
            this.id = id;
            this.target = id.asString().getValue() + "_out";
        }

        /** @param value the partition @return this builder */
        public Builder partition(String value) {
            this.partition = value;
            return this;
        }

        /** @param values the source collections, the first is primary @return this builder */
        public Builder reads(String... values) {
            this.sources = Arrays.asList(values);
            return this;
        }

        /** @param value the target collection @return this builder */
        public Builder writes(String value) {
            this.target = value;
            return this;
        }

        /** @param stages the stages, as JSON, replacing the default one @return this builder */
        public Builder pipeline(String... stages) {
            this.pipeline.clear();
            Arrays.stream(stages).map(BsonDocument::parse).forEach(this.pipeline::add);
            return this;
        }

        /** @param source a source @param paths the field paths read in it @return this builder */
        public Builder sourceFields(String source, String... paths) {
            this.sourceFields.put(source, List.of(paths));
            return this;
        }

        /** The view document as a user would store it. */
        public BsonDocument document() {
            BsonArray collections = new BsonArray();
            sources.forEach(source -> collections.add(new BsonString(source)));
            BsonDocument document = new BsonDocument("_id", id).append("_part", new BsonString(partition))
                .append("collections", collections)
                .append("pipeline", new BsonArray(pipeline.stream().map(BsonDocument::clone).toList()))
                .append("targetCollection", new BsonString(target));
            if (!sourceFields.isEmpty()) {
                BsonDocument fields = new BsonDocument();
                sourceFields.forEach((source, paths) -> fields.append(source,
                        new BsonArray(paths.stream().map(BsonString::new).toList())));
                document.append("sourceFields", fields);
            }
            return document;
        }

        /** The definition, parsed from {@link #document()} with the default field names. */
        public ViewDefinition definition() {
            try {
                return PARSER.parse(document());
            }
            catch (InvalidViewException ex) {
                throw new IllegalStateException("the fixture built an invalid view: " + ex.getMessage(), ex);
            }
        }
    }
}
