package dev.materializer.core.freshness;

import java.util.Set;

import dev.materializer.core.pass.PassScheduler.PassProgress;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * One caller's wait until a view reflects every change of its sources committed before the wait
 * began, decided by the instance that owns the view's partition.
 *
 * <p>What it guarantees: {@link Freshness#FRESH} only once (1) the stream of every collection the
 * view depends on has handed the router every event committed before the wait began (so each such
 * change is marked, or needs no pass), and then (2) no mark of those collections is pending in the
 * partition, or a pass that took its marks after (1) has ended without handing any of them back —
 * and the view is ok. A pass takes every mark of its partition, so a change heard in (1) is either
 * still pending or applied by a pass ended at that point. A failure anywhere only makes the wait
 * longer: a failed view is not ok, a failed pass hands its marks back. Changes are those
 * acknowledged by a majority (the default write concern): a change stream shows nothing else.
 *
 * <p>Not thread-safe: one caller looks at a time ({@link #look()}); the probe it reads is.
 */
public final class FreshnessWait {

    private final FreshnessProbe probe;

    private final String partition;

    private final String id;

    private final long since;

    private final @Nullable BsonTimestamp clusterTime;

    /** The newest take when every stream had heard far enough; null until then. */
    private @Nullable Long takesWhenHeard;

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
        this.since = sinceNanos;
        this.clusterTime = clusterTime;
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
        if (!probe.owns(partition)) {
            return Freshness.NOT_OWNED;
        }
        if (takesWhenHeard == null) {
            for (String collection : dependsOn) {
                if (!probe.heard(collection, since, clusterTime)) {
                    return Freshness.WAITING;
                }
            }
        }
        PassProgress progress = probe.progress(partition, dependsOn);
        if (takesWhenHeard == null) {
            takesWhenHeard = progress.takes();
        }
        boolean applied = !progress.pending()
                || (progress.lastEnded() > takesWhenHeard && !progress.lastEndedUnapplied());
        return applied && probe.ok(partition, id) ? Freshness.FRESH : Freshness.WAITING;
    }
}
