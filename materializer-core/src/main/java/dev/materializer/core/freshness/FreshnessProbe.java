package dev.materializer.core.freshness;

import java.util.Set;

import dev.materializer.core.pass.PassScheduler.PassProgress;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link FreshnessWait} reads of the engine. Every method answers from memory, without a
 * call to MongoDB, so a wait may look often.
 */
public interface FreshnessProbe {

    /**
     * Whether this instance owns the partition (runs its passes).
     * @param partition the partition
     * @return true when it does
     */
    boolean owns(String partition);

    /**
     * The collections whose changes a view's rows depend on: its sources, and the sources of the
     * views of the partition whose targets it reads, and so on.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return the collections, or null when the view is unknown
     */
    @Nullable Set<String> dependsOn(String partition, String id);

    /**
     * Whether the stream of a collection has handed every event committed before a moment to the
     * router: a poll that began at or after the moment found nothing more, or it handed over an
     * event of a later cluster time.
     * @param collection the watched collection
     * @param sinceNanos the moment, in {@link System#nanoTime()}
     * @param clusterTime a cluster time at or after the changes waited for, when known
     * @return true when the stream is that far
     */
    boolean heard(String collection, long sinceNanos, @Nullable BsonTimestamp clusterTime);

    /**
     * Whether the stream of the views collection has handed the engine every change of a view
     * document committed before a moment, in the same sense as {@link #heard}: the definitions the
     * engine runs are then those acknowledged before it, or newer.
     * @param sinceNanos the moment, in {@link System#nanoTime()}
     * @param clusterTime a cluster time at or after the changes waited for, when known
     * @return true when the views stream is that far
     */
    boolean heardDefinitions(long sinceNanos, @Nullable BsonTimestamp clusterTime);

    /**
     * Whether a change of a view document of the partition is still being applied: the work it
     * queued in the partition's lane (its rebalance, which runs the new definition and the views
     * after it) has not ended. Once it has, what it could not apply is pending in
     * {@link #progress}.
     * @param partition the partition
     * @return true while such work is queued or running
     */
    boolean applyingDefinitions(String partition);

    /**
     * A count that moves whenever the partitions this instance owns may change, odd while a change
     * is under way (see {@code OwnedPartitions.changes()}): the same even count before and after
     * a look means no partition moved in between.
     * @return the count
     */
    long ownershipChanges();

    /**
     * Where the passes of a partition stand for some sources.
     * @param partition the partition
     * @param sources the sources
     * @return the progress
     */
    PassProgress progress(String partition, Set<String> sources);

    /**
     * Whether the view's last run applied its pipeline's result (it is neither pending, errored nor blocked).
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @return true when the view is ok
     */
    boolean ok(String partition, String id);
}
