package dev.materializer.core.graph;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;

/**
 * The views of one partition in the order they must run — a view whose target is a source of
 * another runs first — and the views caught in a cycle, which do not run. Ties are broken by view
 * id, so the order is the same on every instance.
 *
 * <p>Immutable and thread-safe.
 *
 * @param sorted the views that can run, upstream first
 * @param cyclic the keys of the views in a cycle, or downstream of one
 */
public record DependencyOrder(List<ViewDefinition> sorted, Set<ViewKey> cyclic) {

    /** Ready views leave in the order of their id text, whatever order they came in. */
    private static final Comparator<ViewDefinition> BY_ID = Comparator.comparing(view -> view.key().id());

    /** Copies the collections so the order stays immutable. */
    public DependencyOrder {
        sorted = List.copyOf(sorted);
        cyclic = Set.copyOf(cyclic);
    }

    /**
     * Orders the views of one partition (Kahn's algorithm): a view is ready when every view whose
     * target it reads is placed; among the ready views the smallest id goes first. The views never
     * ready are in a cycle or downstream of one.
     * @param views the views of one partition, in any order
     * @return the order and the cycles
     * @throws IllegalArgumentException when the views belong to several partitions, or two have the
     *     same id
     */
    public static DependencyOrder of(Collection<ViewDefinition> views) {
        Map<ViewKey, ViewDefinition> byKey = byKey(views);
        Map<String, List<ViewKey>> writersOf = new HashMap<>();
        for (ViewDefinition view : views) {
            writersOf.computeIfAbsent(view.targetCollection(), target -> new ArrayList<>()).add(view.key());
        }
        Map<ViewKey, Set<ViewKey>> downstream = new HashMap<>();
        Map<ViewKey, Integer> upstreamCount = new HashMap<>();
        for (ViewDefinition reader : views) {
            upstreamCount.putIfAbsent(reader.key(), 0);
            for (String source : reader.collections()) {
                for (ViewKey writer : writersOf.getOrDefault(source, List.of())) {
                    // A view never waits for itself; the set counts each edge once
                    if (!writer.equals(reader.key())
                            && downstream.computeIfAbsent(writer, key -> new HashSet<>()).add(reader.key())) {
                        upstreamCount.merge(reader.key(), 1, Integer::sum);
                    }
                }
            }
        }
        PriorityQueue<ViewDefinition> ready = new PriorityQueue<>(BY_ID);
        views.stream().filter(view -> upstreamCount.get(view.key()) == 0).forEach(ready::add);
        List<ViewDefinition> sorted = new ArrayList<>(views.size());
        while (!ready.isEmpty()) {
            ViewDefinition view = ready.poll();
            sorted.add(view);
            for (ViewKey next : downstream.getOrDefault(view.key(), Set.of())) {
                if (upstreamCount.merge(next, -1, Integer::sum) == 0) {
                    ready.add(byKey.get(next));
                }
            }
        }
        Set<ViewKey> cyclic = new HashSet<>(byKey.keySet());
        sorted.forEach(view -> cyclic.remove(view.key()));
        return new DependencyOrder(sorted, cyclic);
    }

    private static Map<ViewKey, ViewDefinition> byKey(Collection<ViewDefinition> views) {
        Map<ViewKey, ViewDefinition> byKey = new HashMap<>();
        @Nullable String partition = null;
        for (ViewDefinition view : views) {
            if (partition == null) {
                partition = view.partition();
            }
            else if (!partition.equals(view.partition())) {
                throw new IllegalArgumentException("the views must be of one partition, got '" + partition + "' and '"
                        + view.partition() + "'");
            }
            if (byKey.putIfAbsent(view.key(), view) != null) {
                throw new IllegalArgumentException("the views must have distinct ids, got " + view.key() + " twice");
            }
        }
        return byKey;
    }
}
