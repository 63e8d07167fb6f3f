package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import de.bwaldvogel.mongo.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * Which documents of a collection a query has to examine, by its {@link SecondaryIndex}es, as
 * MongoDB's planner narrows a query by an index before the whole query decides on each document.
 * The positions answered are a superset of the documents the query matches, so matching the whole
 * query on them gives what a scan gives; in ascending order of position, the order of a scan, so
 * that a sort's ties, a limit and an update of one document take the same documents as a scan.
 *
 * <p>What narrows: the conjunction at the top of the query (its fields, and those of its
 * {@code $and}s, flattened) gives each field with an equality, an {@code $eq} or an {@code $in} of
 * plain values its keys ({@link IndexKeys#ofCondition}); an index whose first field has keys is
 * looked up by its longest run of leading fields with keys. A top-level {@code $or} (or one in an
 * {@code $and}) narrows to the union of its branches when EVERY branch narrows by some index. Of
 * the ways that narrow, the one with the fewest positions is taken. Nothing narrows: null, the
 * collection is scanned. A query with an operator this does not know at its top ({@code $where},
 * say) or a malformed {@code $and}/{@code $or} is left to the scan, whose matcher answers it or
 * refuses it as before.
 *
 * <p>Stateless; reads the indexes under the lock of their collection, which its caller holds.
 */
final class Narrowing {

    private Narrowing() {
    }

    /**
     * The positions of the documents the query may match: distinct, ascending; null when no index
     * narrows it (scan the collection).
     * @param query a query (or an aggregation's leading {@code $match})
     * @param indexes the collection's secondary indexes
     */
    static int @Nullable [] positions(Document query, List<SecondaryIndex> indexes) {
        if (indexes.isEmpty()) {
            return null;
        }
        Plan plan = plan(query, indexes);
        if (plan == null) {
            return null;
        }
        int[] positions = new int[(int) Math.min(Integer.MAX_VALUE - 8, plan.size())];
        int[] count = {0};
        for (SecondaryIndex.Lookup lookup : plan.lookups()) {
            lookup.forEach(position -> positions[count[0]++] = position);
        }
        int[] sorted = Arrays.copyOf(positions, count[0]);
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        return Arrays.copyOf(sorted, distinct);
    }

    /**
     * Look-ups whose union holds every document a query may match.
     * @param lookups the look-ups
     * @param size their sizes added up: at least the number of positions
     */
    private record Plan(List<SecondaryIndex.Lookup> lookups, long size) {
    }

    private static @Nullable Plan plan(Document query, List<SecondaryIndex> indexes) {
        Map<String, Set<Object>> equalities = new HashMap<>();
        List<List<?>> ors = new ArrayList<>();
        if (!conjuncts(query, equalities, ors)) {
            return null;
        }
        Plan best = null;
        for (SecondaryIndex index : indexes) {
            SecondaryIndex.Lookup lookup = index.lookup(equalities);
            if (lookup != null) {
                best = cheaper(best, new Plan(List.of(lookup), lookup.size()));
            }
        }
        for (List<?> branches : ors) {
            best = cheaper(best, union(branches, indexes));
        }
        return best;
    }

    /** The union of the branches' plans; null when a branch does not narrow. */
    private static @Nullable Plan union(List<?> branches, List<SecondaryIndex> indexes) {
        List<SecondaryIndex.Lookup> lookups = new ArrayList<>();
        long size = 0;
        for (Object branch : branches) {
            Plan plan = plan((Document) branch, indexes);
            if (plan == null) {
                return null;
            }
            lookups.addAll(plan.lookups());
            size += plan.size();
        }
        return new Plan(lookups, size);
    }

    private static @Nullable Plan cheaper(@Nullable Plan best, @Nullable Plan other) {
        if (best == null) {
            return other;
        }
        return other != null && other.size() < best.size() ? other : best;
    }

    /**
     * Collects the conjunction at the top of a query: the keys of each field's equality (the first
     * one met, when a field has two: either alone holds every match) and the {@code $or}s.
     * @return false when the query has what this does not know: then nothing narrows
     */
    private static boolean conjuncts(Document query, Map<String, Set<Object>> equalities, List<List<?>> ors) {
        for (Map.Entry<String, Object> entry : query.entrySet()) {
            String field = entry.getKey();
            Object condition = entry.getValue();
            switch (field) {
                case "$and" -> {
                    if (!documents(condition)) {
                        return false;
                    }
                    for (Object part : (List<?>) condition) {
                        if (!conjuncts((Document) part, equalities, ors)) {
                            return false;
                        }
                    }
                }
                case "$or" -> {
                    if (!documents(condition)) {
                        return false;
                    }
                    ors.add((List<?>) condition);
                }
                case "$nor", "$expr", "$comment" -> {
                    // Conditions more on the documents an index gives: the matcher decides them
                }
                default -> {
                    if (field.startsWith("$")) {
                        return false;
                    }
                    Set<Object> keys = IndexKeys.ofCondition(condition);
                    if (keys != null) {
                        equalities.putIfAbsent(field, keys);
                    }
                }
            }
        }
        return true;
    }

    /** Whether a value is a non-empty list of documents, as {@code $and} and {@code $or} take. */
    private static boolean documents(@Nullable Object value) {
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            return false;
        }
        for (Object element : list) {
            if (!(element instanceof Document)) {
                return false;
            }
        }
        return true;
    }
}
