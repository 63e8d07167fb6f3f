package dev.materializer.sample;

import dev.materializer.core.MaterializerOptions;

import org.springframework.core.env.Environment;

/**
 * The names the shop shares with the materializer: the partition field (the tenant, in orders,
 * products, view documents and target rows), the status field of a view document, and the views
 * collection. Read from the same {@code materializer.*} keys as the starter, with the engine's
 * defaults, so changing one in {@code application.yml} changes both.
 *
 * @param partitionField the field that names the tenant
 * @param statusField the field of a view document that holds its status
 * @param viewsCollection the collection of view documents
 */
public record MaterializerFields(String partitionField, String statusField, String viewsCollection) {

    /**
     * The names configured in the environment.
     * @param environment the application's environment
     * @return the names, defaults where unset
     */
    public static MaterializerFields from(Environment environment) {
        return new MaterializerFields(
                environment.getProperty("materializer.partition-field", MaterializerOptions.DEFAULT_PARTITION_FIELD),
                environment.getProperty("materializer.status-field", MaterializerOptions.DEFAULT_STATUS_FIELD),
                environment.getProperty("materializer.views-collection", MaterializerOptions.DEFAULT_VIEWS_COLLECTION));
    }
}
