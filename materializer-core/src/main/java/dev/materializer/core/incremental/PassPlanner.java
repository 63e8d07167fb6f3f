package dev.materializer.core.incremental;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import dev.materializer.core.write.KeyScope;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Decides what a view's pass recomputes: the rows of the keys its changes affect (a key scope), or
 * the whole view, with the reason. Whole when the view's shape is not incremental, when a mark did
 * not name keys (a catch-up, a retry, a restart), when the old key of a document is unknown (an
 * update of a key field or a delete without a pre-image, in a group-by view), when more than
 * {@value #MAX_KEYS} keys changed (the marks count the values their key queries look for too, see
 * {@link KeyMarks}), or when a {@code $lookup}'s foreign change finds no key.
 *
 * <p>It reads key queries as streams and stops as soon as the plan is whole: no query after the
 * one whose documents passed the bound is sent, and no document after that one is read.
 *
 * <p>Guarantee: a key scope names every key whose rows the changes may have changed (the keys of
 * the marks and, for changes of a foreign collection, the keys of the primary documents that join
 * them); so a key-scoped pass leaves the view equal to the pipeline's result, as a whole pass would.
 *
 * <p>Stateless and thread-safe.
 */
public final class PassPlanner {

    /** The most keys a key-scoped pass takes; with more, a whole pass is cheaper. */
    public static final int MAX_KEYS = 1000;

    /** Why a pass with more than {@link #MAX_KEYS} keys is whole. */
    public static final String TOO_MANY_KEYS = "more than " + MAX_KEYS
            + " keys changed (or values of joined documents): a whole pass is cheaper";

    /** Reads the primary documents of key queries, within the view's partition. */
    @FunctionalInterface
    public interface KeyFinder {

        /**
         * Hands the primary documents a filter matches, projected on the key paths, to a taker one
         * at a time, as they come from the server, until it answers false or none is left; it reads
         * none after the taker said no more (a cursor, never the whole result in memory).
         * @param filter a filter on the primary source, to be scoped to the partition
         * @param projection the projection of the key paths
         * @param taker takes a document; false when it wants no more
         */
        void find(BsonDocument filter, BsonDocument projection, Predicate<BsonDocument> taker);
    }

    /**
     * What a pass recomputes.
     * @param scope the key scope, or null for the whole view
     * @param wholeBecause why the pass is whole, when it is
     */
    public record Plan(@Nullable KeyScope scope, @Nullable String wholeBecause) {

        static Plan whole(String reason) {
            return new Plan(null, reason);
        }
    }

    private PassPlanner() {
    }

    /**
     * Plans a view's pass.
     * @param shape the view's shape
     * @param keys what its marks affect
     * @param finder reads the primary documents of key queries
     * @return a key scope, or a whole pass with why
     */
    public static Plan plan(ViewShape shape, AffectedKeys keys, KeyFinder finder) {
        if (!shape.isIncremental()) {
            return Plan.whole("the view is not incremental: " + shape.fullReason());
        }
        if (keys.needsFullPass()) {
            return Plan.whole(String.valueOf(keys.fullPassReason()));
        }
        if (!keys.unknownOldKeyOf().isEmpty()) {
            return Plan.whole("the key before the change of " + keys.unknownOldKeyOf().size()
                    + " document(s) is unknown (no pre-image)");
        }
        Set<GroupKey> all = new LinkedHashSet<>(keys.keys());
        BsonDocument projection = shape.keyProjection();
        for (BsonDocument query : keys.keyQueries()) {
            if (all.size() > MAX_KEYS) {
                // Whole already: the other queries could not narrow it
                break;
            }
            finder.find(query, projection, document -> {
                all.add(shape.keyOf(document));
                return all.size() <= MAX_KEYS;
            });
        }
        if (all.isEmpty()) {
            return Plan.whole("the changes name no key");
        }
        if (all.size() > MAX_KEYS) {
            return Plan.whole(TOO_MANY_KEYS);
        }
        KeyRestriction restriction = KeyRestriction.of(shape);
        List<BsonValue> rowIds = all.stream().map(restriction::rowIdOf).toList();
        String description = all.size() + (all.size() == 1 ? " key of " : " keys of ") + String.join(", ", shape.keyPaths());
        return new Plan(new KeyScope(restriction.pipeline(all), rowIds, description), null);
    }
}
