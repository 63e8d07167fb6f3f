package dev.materializer.spring.data;

import dev.materializer.core.MaterializerOptions;

/**
 * The names the application shares with the engine: the views collection, the field of a view
 * document and of its rows that names the tenant (partition), and the status field the engine
 * writes into a view document. The auto-configuration takes them from {@code materializer.*}.
 *
 * @param viewsCollection the collection of view documents
 * @param partitionField the field that names the tenant
 * @param statusField the field of a view document that the engine owns
 */
public record ViewNaming(String viewsCollection, String partitionField, String statusField) {

    /** The engine's defaults: {@code _aggregations}, {@code _part}, {@code _materializerStatus}. */
    public static final ViewNaming DEFAULTS = new ViewNaming(MaterializerOptions.DEFAULT_VIEWS_COLLECTION,
            MaterializerOptions.DEFAULT_PARTITION_FIELD, MaterializerOptions.DEFAULT_STATUS_FIELD);
}
