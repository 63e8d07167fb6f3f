package dev.materializer.core.freshness;

import java.util.Set;

import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * One caller's wait until a view reflects every change committed before the wait began — of its
 * sources, of the views it reads, and of the view definitions themselves — decided by the instance
 * that owns the view's partition.
 *
 * <p>What it guarantees: {@link Freshness#FRESH} only once the partition has caught up with the
 * moment the wait began for every collection the view depends on ({@link CaughtUpSince}: every
 * stream, the views stream among them, handed over everything committed before it, and then the
 * partition's owner applied every mark and definition change of them, within one span of
 * ownership) and then the view and every view it reads are ok — for a definition changed before
 * the wait, ok means its run of the new definition ended ok. A failure anywhere only makes the wait
 * longer: a failed view is not ok, a failed pass hands its marks back. Changes are those
 * acknowledged by a majority (the default write concern): a change stream shows nothing else.
 *
 * <p>Not thread-safe: one caller looks at a time ({@link #look()}); the probe it reads is.
 */
public final class FreshnessWait {

    private final FreshnessProbe probe;

    private final String partition;

    private final String id;

    private final CaughtUpSince caughtUp;

    /**
     * Begins a wait now.
     * @param probe what the wait reads of the engine
     * @param partition the view's partition
     * @param id the text of the view's {@code _id}
     * @param sinceNanos when the wait began, in {@link System#nanoTime()}: changes acknowledged before it count
     * @param clusterTime a cluster time at or after those changes (the operation time of the caller's
     *     write), when known: a stream that handed over a later event heard them even while never idle
     */
    public FreshnessWait(FreshnessProbe probe, String partition, String id, long sinceNanos,
            @Nullable BsonTimestamp clusterTime) {
        this.probe = probe;
        this.partition = partition;
        this.id = id;
        this.caughtUp = new CaughtUpSince(probe, partition, sinceNanos, clusterTime);
    }

    /**
     * Looks at the engine once.
     * @return where the wait stands
     */
    public Freshness look() {
        Set<String> dependsOn = probe.dependsOn(partition, id);
        if (dependsOn == null) {
            return Freshness.UNKNOWN_VIEW;
        }
        return switch (caughtUp.look(dependsOn)) {
            case NOT_OWNED -> Freshness.NOT_OWNED;
            case HEARING, APPLYING -> Freshness.WAITING;
            // The state last: a definition change has set it by the time it is no longer applying.
            case CAUGHT_UP -> probe.ok(partition, id) ? Freshness.FRESH : Freshness.WAITING;
        };
    }
}
