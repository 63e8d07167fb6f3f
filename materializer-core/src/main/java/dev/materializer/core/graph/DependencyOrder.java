package dev.materializer.core.graph;

import java.util.Collection;
import java.util.List;
import java.util.Set;

import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewKey;

/**
 * The views of one partition in the order they must run — a view whose target is a source of
 * another runs first — and the views caught in a cycle, which do not run. Ties are broken by view
 * id, so the order is the same on every instance.
 *
 * @param sorted the views that can run, upstream first
 * @param cyclic the keys of the views in a cycle, or downstream of one
 */
public record DependencyOrder(List<ViewDefinition> sorted, Set<ViewKey> cyclic) {

    /** Copies the collections so the order stays immutable. */
    public DependencyOrder {
        sorted = List.copyOf(sorted);
        cyclic = Set.copyOf(cyclic);
    }

    /**
     * Orders the views of one partition.
     * @param views the views of one partition, in any order
     * @return the order and the cycles
     */
    public static DependencyOrder of(Collection<ViewDefinition> views) {
        throw new UnsupportedOperationException("DependencyOrder.of: not implemented yet");
    }
}
