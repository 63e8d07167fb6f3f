package dev.materializer.core;

import org.jspecify.annotations.Nullable;


/**
 * Which views to list, and which page of them: the views of one partition, or in one state, or
 * both, or all, in the order of {@link ViewPage#ORDER}.
 *
 * @param partition only the views of this partition; every partition when null
 * @param state only the views in this state; every state when null
 * @param page the page, from 0
 * @param size the most views on a page, 1 or more
 */
public record ViewQuery(@Nullable String partition, @Nullable ViewState state, int page, int size) {

    /** The size of a page when the host does not choose one. */
    public static final int DEFAULT_SIZE = 100;

    /**
     * Checks the page and its size.
     * @throws IllegalArgumentException when the page is negative or the size below 1
     */
    public ViewQuery {
        if (page < 0) {
            throw new IllegalArgumentException("page must be 0 or more, was " + page);
        }
        if (size < 1) {
            throw new IllegalArgumentException("size must be 1 or more, was " + size);
        }
    }

    /**
     * The first page of every view.
     * @param size the most views on the page
     * @return the query
     */
    public static ViewQuery first(int size) {
        return new ViewQuery(null, null, 0, size);
    }

    /**
     * Whether a view is one this query lists (on some page).
     * @param view the view
     * @return true when its partition and state match
     */
    public boolean matches(ViewSnapshot view) {
        return (this.partition == null || this.partition.equals(view.partition()))
                && (this.state == null || this.state == view.state());
    }

    /** The number of matching views before this page. */
    long offset() {
        return (long) this.page * this.size;
    }
}
