package dev.materializer.core.pass;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * What changed in one partition since its last pass: per source, either every view reading it is
 * affected, or only the views whose {@code sourceFields} the changes touched. So an update that
 * touches none of a view's fields does not run that view, even when it runs another view of the
 * same partition.
 *
 * <p>Not thread-safe: owned by the scheduler until a pass takes it, then by that pass alone.
 */
public final class DirtySources {

    /** Per source, the affected view ids; null means every view reading the source. */
    private final Map<String, @Nullable Set<String>> bySource = new HashMap<>();

    /**
     * Marks a source changed for every view reading it.
     * @param source the source
     */
    public void addAll(String source) {
        bySource.put(source, null);
    }

    /**
     * Marks a source changed for some views only.
     * @param source the source
     * @param viewIds the views the change may affect
     */
    public void add(String source, Collection<String> viewIds) {
        if (bySource.containsKey(source) && bySource.get(source) == null) {
            return;
        }
        bySource.computeIfAbsent(source, key -> new HashSet<>()).addAll(viewIds);
    }

    /**
     * Adds what another set marks.
     * @param other the other set
     */
    public void addAll(DirtySources other) {
        other.bySource.forEach((source, views) -> {
            if (views == null) {
                addAll(source);
            }
            else {
                add(source, views);
            }
        });
    }

    /**
     * Whether a view must run: it reads a source marked for every view, or for it.
     * @param viewId the view's id
     * @param sources the view's sources
     * @return true when the view is affected
     */
    public boolean affects(String viewId, Collection<String> sources) {
        for (String source : sources) {
            if (bySource.containsKey(source)) {
                Set<String> views = bySource.get(source);
                if (views == null || views.contains(viewId)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether the source is marked at all. */
    public boolean contains(String source) {
        return bySource.containsKey(source);
    }

    /** The sources marked. */
    public Set<String> sources() {
        return Set.copyOf(bySource.keySet());
    }

    /** Whether nothing is marked. */
    public boolean isEmpty() {
        return bySource.isEmpty();
    }

    @Override
    public String toString() {
        return bySource.toString();
    }
}
