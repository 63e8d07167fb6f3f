package dev.materializer.core.engine;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Supplier;

import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.KeyMarks;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * The keys of the newest events of one collection heard for one view of a partition, with their
 * cluster times: when the partition is taken over, the keys of the events after the time its
 * previous owner's status covers are all the view must recompute.
 *
 * <p>What it guarantees: {@link #after} names every key of every event noted with a time after
 * the one asked (of every event noted, when none is asked), or answers null (unknown: the view runs whole) when such an event may have been
 * forgotten. Events are forgotten oldest first, and only in two ways, both recorded in
 * {@link #forgottenUpTo}: at each note, those at or before the time a status of the view covers, as
 * the views stream told it last ({@link #note}'s {@code covered}), and, past {@link #MAX_EVENTS}, the
 * oldest one whatever its time. An event of unknown time counts as after every time: it is never let
 * go for a covered time. Memory: at most {@link #MAX_EVENTS} events' keys; while the view's owner
 * keeps up, those of the events it has not applied yet and of the newest.
 *
 * <p>Threads: synchronized; a source stream notes (one stream per collection), a pass's lane reads.
 */
final class RecentKeys {

    /** The events kept at most; an event past this forgets the oldest. */
    static final int MAX_EVENTS = 32;

    /** Stands for an event whose time is unknown: after every covered time. */
    static final BsonTimestamp UNKNOWN = new BsonTimestamp(Integer.MAX_VALUE, Integer.MAX_VALUE);

    private final Deque<Heard> events = new ArrayDeque<>();

    /** The newest time of an event forgotten; null while none was. */
    private @Nullable BsonTimestamp forgottenUpTo;

    /**
     * The log of a first event.
     * @param time the event's cluster time, {@link #UNKNOWN} when not known
     * @param keys the keys of the view it affects
     */
    RecentKeys(BsonTimestamp time, AffectedKeys keys) {
        events.addLast(new Heard(time, keys));
    }

    /**
     * Notes an event.
     * @param time the event's cluster time, {@link #UNKNOWN} when not known
     * @param keys the keys of the view it affects
     * @param covered the time the view's status covers of the collection, as last heard; null when
     *     not known
     */
    synchronized void note(BsonTimestamp time, AffectedKeys keys, Supplier<@Nullable BsonTimestamp> covered) {
        BsonTimestamp applied = covered.get();
        while (applied != null && !events.isEmpty() && events.peekFirst().time().compareTo(applied) <= 0) {
            forget(events.removeFirst());
        }
        if (events.size() >= MAX_EVENTS) {
            forget(events.removeFirst());
        }
        events.addLast(new Heard(time, keys));
    }

    private void forget(Heard event) {
        if (forgottenUpTo == null || event.time().compareTo(forgottenUpTo) > 0) {
            forgottenUpTo = event.time();
        }
    }

    /**
     * The keys of the events after a time, and the newest known time of an event noted, read together:
     * a pass that recomputes those keys has applied every event noted of this view and collection up
     * to that time, and no event noted after the read is counted in it.
     * @param covered the time up to which every event was applied; null for every event noted
     * @return the union of their keys (none when no event came after it; a full pass when one of them
     *     named no keys or they name too many; null when an event after it may have been forgotten),
     *     with the newest known time (null when none)
     */
    synchronized After after(@Nullable BsonTimestamp covered) {
        BsonTimestamp newest = newest();
        if (forgottenUpTo != null && (covered == null || forgottenUpTo.compareTo(covered) > 0)) {
            return new After(null, newest);
        }
        KeyMarks after = new KeyMarks();
        boolean any = false;
        for (Heard event : events) {
            if (covered == null || event.time().compareTo(covered) > 0) {
                after.add(event.keys());
                any = true;
            }
        }
        return new After(any ? after.affectedKeys() : AffectedKeys.none(), newest);
    }

    /**
     * The newest known time of an event noted.
     * @return the time, null when no event kept has a known time
     */
    synchronized @Nullable BsonTimestamp newest() {
        BsonTimestamp newest = null;
        for (Heard event : events) {
            if (!UNKNOWN.equals(event.time()) && (newest == null || event.time().compareTo(newest) > 0)) {
                newest = event.time();
            }
        }
        return newest;
    }

    /**
     * What {@link #after} read.
     * @param keys the keys of the events after the time asked, null when some may have been forgotten
     * @param newest the newest known cluster time of an event noted, null when none is known
     */
    record After(@Nullable AffectedKeys keys, @Nullable BsonTimestamp newest) {
    }

    /** The events kept. */
    // Visible for testing
    synchronized int size() {
        return events.size();
    }

    /** One event: its time and the keys of the view it affects. */
    private record Heard(BsonTimestamp time, AffectedKeys keys) {
    }
}
