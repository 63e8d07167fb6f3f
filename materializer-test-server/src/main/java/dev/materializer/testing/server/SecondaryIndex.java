package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * A non-unique index of a collection, single-field or compound, as MongoDB keeps one: the positions
 * of the collection's documents filed by the keys of their values at the index's fields
 * ({@link IndexKeys}), an entry per element of an array (multikey), a compound index one per
 * combination. It answers the positions of the documents whose keys start with given values — a
 * superset of the documents an equality (or {@code $in}) on those leading fields can match, in no
 * order — so that a query examines those instead of the whole collection. Documents that cannot be
 * filed exactly ({@link IndexKeys#UNKEYED}, or more than {@value #MOST_COMBINATIONS} combinations
 * in a compound index) are answered by every look-up.
 *
 * <p>mongo-java-server keeps no such index: it lists the index and ignores it. This one is kept
 * current by its collection ({@link SecondaryIndexedCollection}), which knows the position of each
 * document it adds, changes and removes; the methods of the plain {@link Index} protocol, which the
 * plain collection calls without the position of a removed document, do nothing here, as they do
 * for the plain backend's ignored index (it is sparse for that protocol only: the plain collection
 * then asks no position of it when it removes a document).
 *
 * <p>Which indexes are kept: {@link #honours(Document)}. A unique index stays the plain backend's,
 * and so does an index this class does not honour (sparse, partial, with a collation, hidden, text,
 * geo, hashed or wildcard): listed, not used, as before.
 *
 * <p>Threads: every method but {@link #honours(Document)} runs under the lock of its collection, as
 * the writes and queries that call them do.
 */
final class SecondaryIndex extends Index<Integer> {

    /** More combinations than this in a compound index and a document is answered by every look-up. */
    static final int MOST_COMBINATIONS = 1_000;

    /** The fields of the index description that the index is kept with; any other and it is not kept. */
    private static final Set<String> KEPT_WITH = Set.of("key", "name", "ns", "v", "unique", "background",
            "expireAfterSeconds");

    private final List<String[]> paths;

    /**
     * The positions by the keys of their first n fields, for n = 1 to the number of fields: the
     * look-ups by a leading part of the index.
     */
    private final List<Map<List<Object>, Set<Integer>>> byLeadingKeys;

    /** The key combinations of each filed position: what its removal takes out. */
    private final Map<Integer, Set<List<Object>>> combinations = new HashMap<>();

    /** The positions that every look-up answers. */
    private final Set<Integer> unkeyed = new HashSet<>();

    SecondaryIndex(String name, List<IndexKey> keys) {
        super(name, keys, true);
        this.paths = new ArrayList<>(keys.size());
        this.byLeadingKeys = new ArrayList<>(keys.size());
        for (IndexKey key : keys) {
            paths.add(key.getKey().split("\\.", -1));
            byLeadingKeys.add(new HashMap<>());
        }
    }

    /**
     * Whether an index of this description is kept and used: not unique, not on {@code _id} alone,
     * each field ascending or descending (a number), each path plain (no empty part, no array index,
     * no {@code $}), and no option that changes which documents it holds or how it compares (sparse,
     * partial, collation, hidden, text and the like).
     * @param description the index's description, as {@code createIndexes} gives it
     */
    static boolean honours(Document description) {
        if (!KEPT_WITH.containsAll(description.keySet())) {
            return false;
        }
        if (Boolean.TRUE.equals(description.get("unique"))
                || !(description.get("key") instanceof Document key) || key.isEmpty()
                || key.keySet().equals(Set.of("_id"))) {
            return false;
        }
        for (Map.Entry<String, Object> field : key.entrySet()) {
            if (!(field.getValue() instanceof Number direction) || direction.doubleValue() == 0) {
                return false;
            }
            for (String part : field.getKey().split("\\.", -1)) {
                if (part.isEmpty() || part.startsWith("$") || part.chars().allMatch(Character::isDigit)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The index's field paths, in order. */
    List<String> fields() {
        return keys();
    }

    /** Files a document at its position (added, or changed after {@link #unfile}). */
    void file(int position, Document document) {
        Set<List<Object>> filed = combinationsOf(document);
        if (filed == null) {
            unkeyed.add(position);
            return;
        }
        combinations.put(position, filed);
        for (int n = 1; n <= paths.size(); n++) {
            Map<List<Object>, Set<Integer>> leading = byLeadingKeys.get(n - 1);
            for (List<Object> prefix : prefixes(filed, n)) {
                leading.computeIfAbsent(prefix, k -> new HashSet<>()).add(position);
            }
        }
    }

    /** Takes out what {@link #file} filed at that position. */
    void unfile(int position) {
        if (unkeyed.remove(position)) {
            return;
        }
        Set<List<Object>> filed = combinations.remove(position);
        if (filed == null) {
            return;
        }
        for (int n = 1; n <= paths.size(); n++) {
            Map<List<Object>, Set<Integer>> leading = byLeadingKeys.get(n - 1);
            for (List<Object> prefix : prefixes(filed, n)) {
                Set<Integer> positions = leading.get(prefix);
                if (positions != null && positions.remove(position) && positions.isEmpty()) {
                    leading.remove(prefix);
                }
            }
        }
    }

    /** Forgets every document. */
    void clear() {
        byLeadingKeys.forEach(Map::clear);
        combinations.clear();
        unkeyed.clear();
    }

    /**
     * A look-up of the documents whose first fields have those keys: each combination of the keys
     * given for the longest run of leading fields that all have keys (at most
     * {@value #MOST_COMBINATIONS} combinations); null when the first field has none.
     * @param keysByField the keys the query's equalities look up, by field path
     */
    @Nullable Lookup lookup(Map<String, Set<Object>> keysByField) {
        List<String> fields = fields();
        List<List<Object>> tuples = List.of(List.of());
        int n = 0;
        for (String field : fields) {
            Set<Object> keys = keysByField.get(field);
            if (keys == null || (n > 0 && (long) tuples.size() * keys.size() > MOST_COMBINATIONS)) {
                break;
            }
            tuples = extended(tuples, keys);
            n++;
        }
        if (n == 0) {
            return null;
        }
        Map<List<Object>, Set<Integer>> leading = byLeadingKeys.get(n - 1);
        List<Set<Integer>> found = new ArrayList<>(tuples.size());
        long size = unkeyed.size();
        for (List<Object> tuple : tuples) {
            Set<Integer> positions = leading.get(tuple);
            if (positions != null) {
                found.add(positions);
                size += positions.size();
            }
        }
        found.add(unkeyed);
        return new Lookup(found, size);
    }

    /**
     * The positions of one look-up, as sets of the index (read under the collection's lock only).
     * @param sets the sets of positions, which may overlap
     * @param size their sizes added up: at least the number of positions
     */
    record Lookup(List<Set<Integer>> sets, long size) {

        void forEach(IntConsumer position) {
            for (Set<Integer> set : sets) {
                for (Integer filed : set) {
                    position.accept(filed);
                }
            }
        }
    }

    /** The combinations of a document's keys, one key per field; null when it cannot be filed exactly. */
    private @Nullable Set<List<Object>> combinationsOf(Document document) {
        List<List<Object>> tuples = List.of(List.of());
        for (String[] path : paths) {
            Set<Object> keys = IndexKeys.ofDocument(document, path);
            if (keys == null || (long) tuples.size() * keys.size() > MOST_COMBINATIONS) {
                return null;
            }
            tuples = extended(tuples, keys);
        }
        return new HashSet<>(tuples);
    }

    /** Each tuple extended by each key: the combinations one field longer. */
    private static List<List<Object>> extended(List<List<Object>> tuples, Set<Object> keys) {
        List<List<Object>> longer = new ArrayList<>(tuples.size() * keys.size());
        for (List<Object> tuple : tuples) {
            for (Object key : keys) {
                List<Object> extended = new ArrayList<>(tuple.size() + 1);
                extended.addAll(tuple);
                extended.add(key);
                longer.add(List.copyOf(extended));
            }
        }
        return longer;
    }

    private static Collection<List<Object>> prefixes(Set<List<Object>> filed, int n) {
        if (filed.isEmpty() || filed.iterator().next().size() == n) {
            return filed;
        }
        Set<List<Object>> prefixes = new HashSet<>();
        for (List<Object> tuple : filed) {
            prefixes.add(List.copyOf(tuple.subList(0, n)));
        }
        return prefixes;
    }

    /** The positions filed: keyed and unkeyed. */
    @Override
    public long getCount() {
        return combinations.size() + unkeyed.size();
    }

    @Override
    public long getDataSize() {
        return 0;
    }

    // The plain Index protocol: the collection files and unfiles by position instead.

    @Override
    public @Nullable Integer getPosition(Document document) {
        return null;
    }

    @Override
    public void checkAdd(Document document, MongoCollection<Integer> collection) {
    }

    @Override
    public void add(Document document, Integer position, MongoCollection<Integer> collection) {
    }

    @Override
    public @Nullable Integer remove(Document document) {
        return null;
    }

    @Override
    public boolean canHandle(Document query) {
        return false;
    }

    @Override
    public Iterable<Integer> getPositions(Document query) {
        throw new UnsupportedOperationException("a secondary index is looked up by its collection");
    }

    @Override
    public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<Integer> collection) {
    }

    @Override
    public void updateInPlace(Document oldDocument, Document newDocument, Integer position,
            MongoCollection<Integer> collection) {
    }

    @Override
    public void drop() {
        clear();
    }
}
