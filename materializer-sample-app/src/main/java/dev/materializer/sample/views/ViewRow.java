package dev.materializer.sample.views;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One row of a view as a reader sees it: the key the pipeline gave it, and its content without the
 * engine's fields ({@code _id}, partition, {@code _viewRow}, {@code _viewFrom}, {@code _viewTo},
 * {@code _viewHash}).
 *
 * @param id the row's own key (the stored {@code _id.id})
 * @param content the row's other fields
 */
public record ViewRow(@Nullable Object id, Map<String, @Nullable Object> content) {
}
