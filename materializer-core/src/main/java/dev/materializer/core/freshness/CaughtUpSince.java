package dev.materializer.core.freshness;

import java.util.HashSet;
import java.util.Set;

import dev.materializer.core.pass.PassScheduler.PassProgress;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * Whether the owner of a partition has applied everything of some collections committed before a
 * moment M: the one judgement behind a wait for freshness ({@link FreshnessWait}) and the
 * reconciler's drift, so both read the engine's bookkeeping the same way.
 *
 * <p>What it guarantees: {@link Stage#CAUGHT_UP} only once (1) the views stream and the stream of
 * every collection asked about have handed the engine every event committed before M (so each such
 * change is marked, needs no pass, or is a definition the engine runs now), and then (2) no change
 * of a view definition of the partition is still being applied, and no mark of those collections is
 * pending in the partition or a pass taken after (1) has ended having run here and handed none of
 * them back. (2) is judged within one span in which this instance owned the partition throughout: a
 * change of ownership (a flap A→B→A drops the marks of a pass run while not the owner, and the
 * catch-up of the regain comes after) starts (2) over, and so does a collection newly asked about.
 * A failure anywhere only delays it.
 *
 * <p>Not thread-safe: one caller looks at a time; the probe it reads is.
 */
public final class CaughtUpSince {

    /** Where a partition stands against the moment. */
    public enum Stage {

        /** This instance does not own the partition: only its owner can tell. */
        NOT_OWNED,

        /** A stream has not handed over everything committed before the moment yet. */
        HEARING,

        /** Heard; marks, a definition change or a catch-up are still to be applied (or ownership moved meanwhile). */
        APPLYING,

        /** Everything of those collections committed before the moment is applied. */
        CAUGHT_UP
    }

    private final FreshnessProbe probe;

    private final String partition;

    private final long since;

    private final @Nullable BsonTimestamp clusterTime;

    private boolean definitionsHeard;

    /** The collections whose streams have handed over everything before the moment. */
    private final Set<String> heard = new HashSet<>();

    /** The newest take when everything asked about had been heard (part 2 starts there); null until then. */
    private @Nullable Long takesWhenHeard;

    /** The ownership count at that point: another count starts part 2 over. */
    private long ownershipWhenHeard;

    /**
     * Begins a judgement against a moment.
     * @param probe what it reads of the engine
     * @param partition the partition
     * @param sinceNanos the moment, in {@link System#nanoTime()}: changes acknowledged before it count
     * @param clusterTime a cluster time at or after those changes, when known: a stream that handed
     *     over a later event heard them even while never idle
     */
    public CaughtUpSince(FreshnessProbe probe, String partition, long sinceNanos, @Nullable BsonTimestamp clusterTime) {
        this.probe = probe;
        this.partition = partition;
        this.since = sinceNanos;
        this.clusterTime = clusterTime;
    }

    /**
     * Looks at the engine once.
     * @param collections the collections of the view's lineage (the views collection is always heard too)
     * @return where the partition stands
     */
    public Stage look(Set<String> collections) {
        // Read first and again last: the same even count means no partition moved during this look.
        long ownership = probe.ownershipChanges();
        if (!probe.owns(partition)) {
            return Stage.NOT_OWNED;
        }
        if (!definitionsHeard) {
            if (!probe.heardDefinitions(since, clusterTime)) {
                return Stage.HEARING;
            }
            definitionsHeard = true;
        }
        boolean newlyHeard = false;
        for (String collection : collections) {
            if (!heard.contains(collection)) {
                if (!probe.heard(collection, since, clusterTime)) {
                    return Stage.HEARING;
                }
                heard.add(collection);
                newlyHeard = true;
            }
        }
        // Before the marks: a definition change hands what it could not apply to the scheduler before it ends.
        boolean applyingDefinitions = probe.applyingDefinitions(partition);
        PassProgress progress = probe.progress(partition, collections);
        if (takesWhenHeard == null || newlyHeard || ownership != ownershipWhenHeard) {
            takesWhenHeard = progress.takes();
            ownershipWhenHeard = ownership;
        }
        boolean applied = !progress.pending()
                || (progress.lastEnded() > takesWhenHeard && !progress.lastEndedUnapplied());
        if ((ownership & 1) != 0 || probe.ownershipChanges() != ownership) {
            // Ownership moved while looking: what was seen may be a pass of another span. Judged again next look.
            return Stage.APPLYING;
        }
        return applied && !applyingDefinitions ? Stage.CAUGHT_UP : Stage.APPLYING;
    }
}
