package dev.materializer.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * One page of the views a {@link ViewQuery} matches, in the order of {@link #ORDER}: by partition,
 * then by id, so the pages of one query do not overlap while the views stay the same.
 *
 * @param page the page, from 0
 * @param size the most views on a page (this one may hold fewer: the last, or one past the end)
 * @param total how many views match the query, on every page
 * @param views the views of this page
 */
public record ViewPage(int page, int size, int total, List<ViewSnapshot> views) {

    /** The order of the views of a page: by partition, then by id (both as text). */
    public static final Comparator<ViewSnapshot> ORDER = Comparator.comparing(ViewSnapshot::partition)
        .thenComparing(ViewSnapshot::id);

    /** Copies the views so the record stays immutable. */
    public ViewPage {
        views = List.copyOf(views);
    }

    /**
     * The page of a query among some views: those that match, sorted, then the page's share.
     * @param views every view, in any order
     * @param query which views, and which page
     * @return the page
     */
    public static ViewPage of(Collection<ViewSnapshot> views, ViewQuery query) {
        List<ViewSnapshot> matching = new ArrayList<>();
        for (ViewSnapshot view : views) {
            if (query.matches(view)) {
                matching.add(view);
            }
        }
        matching.sort(ORDER);
        int from = (int) Math.min(query.offset(), matching.size());
        int to = (int) Math.min((long) from + query.size(), matching.size());
        return new ViewPage(query.page(), query.size(), matching.size(), matching.subList(from, to));
    }
}
