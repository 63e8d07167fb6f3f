package dev.materializer.sample.views;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The rows of one view of one tenant, all of one generation.
 *
 * @param view the id of the view
 * @param state the view's state ({@code ok}, {@code errored}, {@code cycle}), or null before its first run
 * @param generation the generation read, or null before the first run (then there are no rows)
 * @param rows the rows
 */
public record ViewRows(String view, @Nullable String state, @Nullable String generation, List<ViewRow> rows) {
}
