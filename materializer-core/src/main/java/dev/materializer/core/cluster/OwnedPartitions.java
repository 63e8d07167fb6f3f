package dev.materializer.core.cluster;

import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Which partitions this instance runs now: those whose {@link Rendezvous} owner among the live
 * instances is this one, or every partition while the live set is unknown or holds this instance
 * alone. {@link PartitionOwnership} decides when the live set changes and publishes it here; the
 * parts that only ask (the streams, the passes, the checkpoints, the waits for freshness) hold
 * this object, so they are built before the beats that call back into them.
 *
 * <p>What it guarantees:
 * <ol>
 *   <li>Partitions being gained are owned from before their catch-ups are marked until the new live
 *       set is published, so a checkpoint that records the new live set finds those catch-ups pending.</li>
 *   <li>{@link #changes()} is odd while a change is being published: a reader that reads the same even
 *       count before and after a look saw no change of ownership in between.</li>
 * </ol>
 *
 * <p>Threads: read from any thread (stream readers, pass workers, waiting callers) through volatile
 * fields and an atomic count; published only by the thread of a beat, which {@link PartitionOwnership}
 * serializes.
 */
public final class OwnedPartitions {

    private final String instanceId;

    private volatile @Nullable Set<String> live;

    /** The partitions a beat is taking over: owned while their catch-ups are marked. */
    private volatile Set<String> gaining = Set.of();

    /** Moves by one before and by one after every change of what {@link #owns} answers. */
    private final AtomicLong changes = new AtomicLong();

    /**
     * Creates the ownership of one instance, which owns every partition until a live set is published.
     * @param instanceId this instance
     */
    public OwnedPartitions(String instanceId) {
        this.instanceId = instanceId;
    }

    /**
     * Whether this instance runs the partition: true while the live set is unknown or holds this
     * instance alone, so one instance behaves as if there were no others.
     * @param partition the partition
     * @return whether this instance owns it
     */
    public boolean owns(String partition) {
        return gaining.contains(partition) || ownsAmong(partition, live);
    }

    /**
     * Whether an instance owns a partition among a set of live instances, by the rule every
     * instance applies: the rendezvous owner, or any instance while the set is unknown or holds at
     * most one. Checkpoints use it to tell which partitions their writer answered for.
     * @param instance the instance
     * @param partition the partition
     * @param among the live instances, empty when unknown
     * @return whether that instance owns the partition
     */
    public static boolean owner(String instance, String partition, Set<String> among) {
        return among.size() <= 1 || Rendezvous.owner(partition, among).equals(instance);
    }

    /** Whether this instance owns the partition among a live set, null when unknown. */
    boolean ownsAmong(String partition, @Nullable Set<String> among) {
        return among == null || owner(instanceId, partition, among);
    }

    /**
     * A count of the changes of ownership this instance has made: it moves by one when a change
     * begins and by one when it is published, so it is odd while a change is under way. A reader
     * that reads the same even count before and after looking at the work of a partition knows the
     * partition did not move in between — a pass it saw end could not have run while another
     * instance owned it. Any change of the live set counts, whichever partitions it moved.
     * @return the count
     */
    public long changes() {
        return changes.get();
    }

    /**
     * The live instances at the last beat, this one included.
     * @return the live set, empty before the first beat
     */
    public Set<String> liveInstances() {
        Set<String> known = live;
        return known == null ? Set.of() : known;
    }

    /** This instance. */
    String instanceId() {
        return instanceId;
    }

    /** The live set last published; null before the first beat. */
    @Nullable Set<String> live() {
        return live;
    }

    /**
     * Publishes a new live set. Gained partitions are owned while {@code onGained} marks their
     * catch-ups, before the live set that gives them to this instance is published; the count of
     * changes is odd from before the first write a reader may see until after the last.
     */
    void publish(Set<String> now, Set<String> gained, Consumer<Set<String>> onGained) {
        changes.incrementAndGet();
        try {
            if (gained.isEmpty()) {
                live = now;
                return;
            }
            gaining = Set.copyOf(gained);
            try {
                onGained.accept(gained);
            }
            finally {
                live = now;
                gaining = Set.of();
            }
        }
        finally {
            changes.incrementAndGet();
        }
    }
}
