package dev.materializer.testing.server;

import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link SecondaryIndex} files a document under, and what an equality of a query looks up:
 * keys that are equal whenever the server's matcher ({@code DefaultQueryMatcher}) finds the two
 * values equal, so that the documents filed under a query's keys include every document the query's
 * equality can match. Keys may be coarser than the matcher (two values of one key that it finds
 * unequal only make a candidate more): the whole query still decides on each candidate.
 *
 * <p>As the matcher compares: numbers by value whatever their type ({@code 1}, {@code 1L},
 * {@code 1.0}, {@code -0.0} and a {@code Decimal128} one are one key); a missing field, a field of a
 * path through a non-document and {@code null} are the {@link #NULL} key; an array is filed under
 * each of its elements (multikey), as an equality with a plain value matches an array that holds
 * it. Strings, booleans, object ids, dates and UUIDs are their own keys.
 *
 * <p>When in doubt, no key: a document whose value at the path cannot be filed exactly (a path that
 * goes through an array, an empty array, an array in an array, a value of another BSON type:
 * regular expression, binary, timestamp, min and max keys, code) is {@link #UNKEYED}, a candidate of
 * every look-up of the index; and a condition is looked up only when it is a plain value of the kinds
 * above, {@code null}, or {@code $eq} or {@code $in} of those alone: an embedded document or an
 * array as a query value (which this matcher may take as a sub-query or compare whole) is left to the
 * scan. An embedded document as a stored value is filed under {@link #DOCUMENT}, which no look-up
 * asks for: the matcher finds no plain value or null equal to a document.
 *
 * <p>Stateless.
 */
final class IndexKeys {

    /** The key of null and of a missing field. */
    static final Object NULL = new Marker("null");

    /** The key of an embedded document: no look-up asks for it. */
    static final Object DOCUMENT = new Marker("document");

    /** The keys of a document that cannot be filed exactly: a candidate of every look-up. */
    static final @Nullable Set<Object> UNKEYED = null;

    private IndexKeys() {
    }

    /** A key of its own, equal to itself only. */
    private record Marker(String name) {
    }

    /**
     * The keys of a document's value at one path.
     * @param document the stored document
     * @param path the field path, split at its dots
     * @return the keys (one or more), or {@link #UNKEYED}
     */
    static @Nullable Set<Object> ofDocument(Document document, String[] path) {
        Object value = document;
        for (String segment : path) {
            if (value instanceof List<?>) {
                // The matcher looks into each element (and into arrays of arrays): not filed
                return UNKEYED;
            }
            if (!(value instanceof Document parent)) {
                // A path through a scalar, null or a missing field: the matcher sees it missing
                return Set.of(NULL);
            }
            value = parent.containsKey(segment) ? parent.get(segment) : Missing.getInstance();
        }
        if (value instanceof List<?> elements) {
            if (elements.isEmpty()) {
                return UNKEYED;
            }
            Set<Object> keys = new HashSet<>();
            for (Object element : elements) {
                if (element instanceof List<?>) {
                    return UNKEYED;
                }
                Object key = storedKey(element);
                if (key == null) {
                    return UNKEYED;
                }
                keys.add(key);
            }
            return keys;
        }
        Object key = storedKey(value);
        return key == null ? UNKEYED : Set.of(key);
    }

    /**
     * The keys a condition on the indexed field looks up: the documents filed under them include every
     * document the condition can match.
     * @param condition the value of the field in the query: a plain value, or an operator document
     * @return the keys, possibly none ({@code $in: []}), or null when the condition is not looked up
     */
    static @Nullable Set<Object> ofCondition(@Nullable Object condition) {
        if (condition instanceof Document operators) {
            if (operators.size() != 1) {
                return null;
            }
            Map.Entry<String, Object> operator = operators.entrySet().iterator().next();
            if (operator.getKey().equals("$eq")) {
                Object key = queriedKey(operator.getValue());
                return key == null ? null : Set.of(key);
            }
            if (operator.getKey().equals("$in") && operator.getValue() instanceof Collection<?> values) {
                Set<Object> keys = new HashSet<>();
                for (Object value : values) {
                    Object key = queriedKey(value);
                    if (key == null) {
                        return null;
                    }
                    keys.add(key);
                }
                return keys;
            }
            return null;
        }
        Object key = queriedKey(condition);
        return key == null ? null : Set.of(key);
    }

    /** The key of a stored value that is no array; null when it cannot be filed. */
    private static @Nullable Object storedKey(@Nullable Object value) {
        if (value instanceof Document) {
            return DOCUMENT;
        }
        return queriedKey(value);
    }

    /** The key of a plain value or null; null for any other value (documents, arrays, other types). */
    private static @Nullable Object queriedKey(@Nullable Object value) {
        if (Missing.isNullOrMissing(value)) {
            return NULL;
        }
        if (value instanceof Number number) {
            return numberKey(number);
        }
        if (value instanceof String || value instanceof Boolean || value instanceof ObjectId
                || value instanceof Instant || value instanceof Date || value instanceof UUID) {
            return value;
        }
        return null;
    }

    /** Numbers by their value as a double, as the matcher normalises them; -0.0 is 0.0. */
    private static @Nullable Object numberKey(Number number) {
        double value;
        try {
            value = number.doubleValue();
        }
        catch (RuntimeException ex) {
            return null;
        }
        return value == 0.0 ? Double.valueOf(0.0) : Double.valueOf(value);
    }
}
