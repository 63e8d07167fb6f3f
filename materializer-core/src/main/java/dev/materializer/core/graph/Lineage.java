package dev.materializer.core.graph;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.materializer.core.view.ViewDefinition;

/**
 * What a view's rows derive from within its partition: its sources, the sources of the views whose
 * targets it reads, and so on up, with those views. A cycle ends the walk where it closes.
 *
 * <p>Immutable and thread-safe.
 *
 * @param collections the collections whose changes can change the view's rows, sorted
 * @param upstream the views of the partition whose rows the view reads, directly or through others
 */
public record Lineage(Set<String> collections, List<ViewDefinition> upstream) {

    /** Copies the collections so the lineage stays immutable. */
    public Lineage {
        collections = Set.copyOf(collections);
        upstream = List.copyOf(upstream);
    }

    /**
     * Walks up from a view.
     * @param view the view
     * @param partitionViews the views of its partition
     * @return its lineage
     */
    public static Lineage of(ViewDefinition view, List<ViewDefinition> partitionViews) {
        Set<String> collections = new TreeSet<>();
        List<ViewDefinition> upstream = new ArrayList<>();
        Deque<String> toVisit = new ArrayDeque<>(view.collections());
        while (!toVisit.isEmpty()) {
            String collection = toVisit.pop();
            if (!collections.add(collection)) {
                continue;
            }
            for (ViewDefinition other : partitionViews) {
                if (other.targetCollection().equals(collection) && !other.key().equals(view.key())
                        && !upstream.contains(other)) {
                    upstream.add(other);
                    toVisit.addAll(other.collections());
                }
            }
        }
        return new Lineage(collections, upstream);
    }
}
