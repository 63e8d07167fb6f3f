package dev.materializer.core.write;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the row versions no reader needs any more: those superseded at or before the oldest
 * generation still readable — the oldest generation a flip superseded less than
 * {@code generationGrace} ago, else the current one (server time; see {@link ReadableGenerations}).
 *
 * <p>Safe without the view's lease, and on a status read at any time before: a version superseded
 * in a generation that flipped is never current again (only versions closed by an attempt that did
 * not flip, above the current generation, are reopened), and an older status only names an older
 * generation, so the sweep removes less. The versions an attempt added and did not flip are not the
 * sweep's: the next attempt, holding the lease, removes them.
 *
 * <p>Before a pass it sweeps only when the oldest readable generation of the place (target and
 * partition) moved since its last sweep there ({@link #sweepOnce}): versions superseded at or before
 * a number it swept do not come back (a close names an attempt above the current generation), so
 * sweeping again at the same number removes nothing but costs a round trip. Sweeping less only
 * keeps old versions longer; the sweep after each flip's grace still runs whatever was swept.
 *
 * <p>Thread-safe: the numbers swept are in a concurrent map, one entry per place swept.
 */
final class GenerationSweeper {

    private static final Logger log = LoggerFactory.getLogger(GenerationSweeper.class);

    private final MongoDatabase database;

    private final TargetRows rows;

    private final ReadableGenerations readable;

    /** Per place ({@code target \0 partition}), the oldest readable generation it was last swept at. */
    private final Map<String, Long> sweptAt = new ConcurrentHashMap<>();

    GenerationSweeper(MongoDatabase database, TargetRows rows, ReadableGenerations readable) {
        this.database = database;
        this.rows = rows;
        this.readable = readable;
    }

    /**
     * Removes the versions of the view's partition that no reader of a readable generation sees.
     * @param status the view's status, as read at {@code serverNow}
     * @param serverNow the server's time of that read
     * @return how many versions it removed
     */
    long sweep(ViewDefinition view, ViewStatus status, Instant serverNow) {
        long oldestReadable = readable.oldestReadable(status, serverNow);
        if (oldestReadable <= 0) {
            return 0;
        }
        return sweepAt(view, oldestReadable);
    }

    /**
     * Sweeps as {@link #sweep} does, unless this instance swept the view's place at that oldest
     * readable generation or a later one already: then nothing is there to remove.
     * @return how many versions it removed
     */
    long sweepOnce(ViewDefinition view, ViewStatus status, Instant serverNow) {
        long oldestReadable = dueAt(view, status, serverNow);
        return oldestReadable <= 0 ? 0 : sweepAt(view, oldestReadable);
    }

    /**
     * The generation to sweep the view's place at: its oldest readable one, when this instance has not
     * swept the place at it or later; else 0 (nothing there to remove).
     */
    private long dueAt(ViewDefinition view, ViewStatus status, Instant serverNow) {
        long oldestReadable = readable.oldestReadable(status, serverNow);
        Long swept = sweptAt.get(placeOf(view));
        return oldestReadable <= 0 || (swept != null && swept >= oldestReadable) ? 0 : oldestReadable;
    }

    /**
     * {@link #sweepOnce} for the views of a batched pass, in one delete: the views of one target whose
     * oldest readable generation moved since their last sweep.
     * @param statuses per view of the target, its status as read at {@code serverNow}
     */
    void sweepOnce(String targetCollection, Map<ViewDefinition, ViewStatus> statuses, Instant serverNow) {
        List<BsonValue> filters = new ArrayList<>();
        Map<String, Long> swept = new HashMap<>();
        statuses.forEach((view, status) -> {
            long oldestReadable = dueAt(view, status, serverNow);
            if (oldestReadable > 0) {
                filters.add(rows.supersededBy(view.partition(), oldestReadable));
                swept.put(placeOf(view), oldestReadable);
            }
        });
        if (filters.isEmpty()) {
            return;
        }
        database.getCollection(targetCollection, BsonDocument.class)
            .deleteMany(filters.size() == 1 ? filters.get(0).asDocument() : new BsonDocument("$or", new BsonArray(filters)));
        swept.forEach((place, at) -> sweptAt.merge(place, at, Math::max));
    }

    private long sweepAt(ViewDefinition view, long oldestReadable) {
        MongoCollection<BsonDocument> target = database.getCollection(view.targetCollection(), BsonDocument.class);
        long removed = target.deleteMany(rows.supersededBy(view.partition(), oldestReadable)).getDeletedCount();
        if (removed > 0) {
            log.debug("View {}: removed {} superseded row version(s)", view.key(), removed);
        }
        sweptAt.merge(placeOf(view), oldestReadable, Math::max);
        return removed;
    }

    private static String placeOf(ViewDefinition view) {
        return view.targetCollection() + "\0" + view.partition();
    }
}
