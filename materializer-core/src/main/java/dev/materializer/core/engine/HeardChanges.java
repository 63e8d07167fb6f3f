package dev.materializer.core.engine;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.view.CoveredTimes;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * What this instance's streams heard of every partition, owned or not — so that, on taking a
 * partition over, it can tell which of its views have changes after what their previous owner
 * applied, and run only those.
 *
 * <p>Per collection, the partitions whose events before the stream's first position a checkpoint
 * answers for ({@link #answered}): from there on the stream hands over every event. A partition not
 * answered for at the open may be later, on a take-over, by a checkpoint saved at or after where the
 * stream started ({@link #answeredLater}) — also for a stream that started from now, without any. Per partition
 * and view, the newest events routed to it, with their cluster times and the keys they affect
 * ({@link #heard}, {@link RecentKeys}), recorded before the stream asks who owns the partition, so a
 * pass that sees the partition owned sees every event that was not marked for it. Memory: per view
 * and collection it reads, the keys of at most {@link RecentKeys#MAX_EVENTS} events; while the owner
 * keeps up, of the few its status does not cover yet (told by the views stream), and of the newest.
 *
 * <p>What it guarantees ({@link #toRun}): a handover lets a view go only when its stored status says
 * {@code ok} for its current definition, in its place, having read the targets it reads now, and
 * covers — per collection it reads, for which this instance heard the partition from an answered
 * position on — every event heard of it (its {@code covered} time at or after the newest). With the
 * same status it runs the view for the keys of the events after that time only, when it kept them
 * all — or, when the status has no covered time of a collection, for the keys of every event heard of
 * it: by the checkpoint invariant, the events before the answered position were applied, and the
 * stream heard each one after it. Anything not known (an event without a cluster time when its keys were let go, a routing
 * failure, a stream started from now, a partition that appeared after the stream opened, a view
 * registered or redefined here after it opened, a status of another shape, keys forgotten past the
 * bound) runs the view whole: fail safe. What a status must say is
 * {@link StoredCoverage}'s, shared with the check of replayed changes.
 *
 * <p>Thread-safe: the streams write, the lanes read; concurrent maps.
 */
final class HeardChanges {

    /** Per collection, the partitions heard from an answered position on. */
    private final Map<String, Set<String>> answered = new ConcurrentHashMap<>();

    /**
     * Per collection, the partitions whose events this instance heard, routed, from where its stream
     * started on (they read the collection when it opened, and no event of them failed routing since):
     * those a checkpoint at or after that start may still answer for ({@link #answeredLater}). A set
     * is replaced, never emptied, when the stream starts anew, so a late answer to an old one is lost.
     */
    private final Map<String, Set<String>> routedSinceStart = new ConcurrentHashMap<>();

    /**
     * Per collection, the views registered here that read it when its stream started, with the
     * fingerprints of their definitions then: only their events, as those definitions route them,
     * are all in {@link #heard} from that start on. A view registered or redefined later (created,
     * given the collection or other fields, while the stream ran) missed the events routed before
     * its registration here, so a handover never lets it go on this instance's word.
     */
    private final Map<String, Map<ViewKey, String>> viewsAtStart = new ConcurrentHashMap<>();

    /** Per partition, per view id, per collection: the newest events routed to it. */
    private final Map<String, Map<String, Map<String, RecentKeys>>> heard = new ConcurrentHashMap<>();

    /** What a view's status covered of a collection, as the views stream told it last: what its keys may let go. */
    private final CoveredLookup covered;

    /**
     * What the streams hear, letting go of the keys of events a view's status covers.
     * @param covered what a view's status covers, as last heard
     */
    HeardChanges(CoveredLookup covered) {
        this.covered = covered;
    }

    /** What the streams hear, letting go of keys only past the bound. */
    // Visible for testing
    HeardChanges() {
        this((partition, viewId, collection) -> null);
    }

    /**
     * The time up to which a view's status covers a collection, as the registry heard it last from
     * the views stream (for a view of any partition): events at or before it were applied.
     */
    @FunctionalInterface
    interface CoveredLookup {

        /**
         * The time up to which the status of a view of a partition covers a collection.
         * @return the time, or null when not known
         */
        @Nullable BsonTimestamp covered(String partition, String viewId, String collection);

        /**
         * The statuses the registry last heard.
         * @param registry the registry
         * @return the look-up
         */
        static CoveredLookup of(ViewRegistry registry) {
            return (partition, viewId, collection) -> registry.coveredTime(new ViewKey(partition, viewId), collection);
        }
    }

    /**
     * At a stream's first open: the partitions whose events before its position the checkpoint it
     * resumed from (or one alongside) answers for. Replaces what was known of the collection.
     */
    synchronized void answered(String collection, Set<String> partitions, Collection<ViewDefinition> reading) {
        Set<String> known = ConcurrentHashMap.newKeySet();
        known.addAll(partitions);
        answered.put(collection, known);
        started(collection, reading);
    }

    /** From a stream's start on, it hears every event of the views reading it then. */
    private void started(String collection, Collection<ViewDefinition> reading) {
        Set<String> partitions = new HashSet<>();
        Map<ViewKey, String> views = new HashMap<>();
        for (ViewDefinition view : reading) {
            partitions.add(view.partition());
            views.put(view.key(), view.fingerprint());
        }
        routedSinceStart.put(collection, concurrentCopy(partitions));
        viewsAtStart.put(collection, Map.copyOf(views));
    }

    /**
     * A stream that started again from now: what came before is unknown for every partition; from
     * its new start on it hears the partitions reading the collection now.
     */
    synchronized void forget(String collection, Collection<ViewDefinition> reading) {
        answered.put(collection, ConcurrentHashMap.newKeySet());
        started(collection, reading);
    }

    /**
     * The partitions of a collection not answered for yet that a checkpoint at or after where its
     * stream started could still answer for, with the start they belong to.
     * @return the partitions (a copy) and the start's mark for {@link #answeredLater}
     */
    synchronized Unanswered unanswered(String collection) {
        Set<String> routed = routedSinceStart.getOrDefault(collection, Set.of());
        Set<String> open = new HashSet<>(routed);
        open.removeAll(answered.getOrDefault(collection, Set.of()));
        return new Unanswered(Set.copyOf(open), routed);
    }

    /**
     * The partitions a checkpoint at or after where the stream started answers for, read after
     * {@link #unanswered}: every event of them before the checkpoint was applied, and this instance
     * heard every one after it. Ignored when the stream started anew meanwhile; a partition whose
     * events failed routing meanwhile is left out.
     */
    synchronized void answeredLater(String collection, Unanswered asked, Set<String> partitions) {
        Set<String> routed = routedSinceStart.get(collection);
        Set<String> known = answered.get(collection);
        if (routed != asked.start() || known == null) {
            return;
        }
        for (String partition : partitions) {
            if (routed.contains(partition)) {
                known.add(partition);
            }
        }
    }

    /**
     * What {@link #unanswered} found.
     * @param partitions the partitions not answered for that a checkpoint could still answer for
     * @param start the set of the stream's start they were read from (compared by identity)
     */
    record Unanswered(Set<String> partitions, Set<String> start) {
    }

    private static Set<String> concurrentCopy(Set<String> partitions) {
        Set<String> copy = ConcurrentHashMap.newKeySet();
        copy.addAll(partitions);
        return copy;
    }

    /**
     * An event routed to some views of a partition.
     * @param keysByView per view, the keys of it the event affects (or a full pass)
     * @param time the event's cluster time, null when unknown
     */
    void heard(String collection, String partition, Map<String, AffectedKeys> keysByView, @Nullable BsonTimestamp time) {
        BsonTimestamp at = time == null ? RecentKeys.UNKNOWN : time;
        Map<String, Map<String, RecentKeys>> views = heard.computeIfAbsent(partition, key -> new ConcurrentHashMap<>());
        keysByView.forEach((viewId, keys) -> {
            Map<String, RecentKeys> byCollection = views.computeIfAbsent(viewId, key -> new ConcurrentHashMap<>());
            RecentKeys log = byCollection.get(collection);
            if (log == null) {
                log = byCollection.putIfAbsent(collection, new RecentKeys(at, keys));
                if (log == null) {
                    return;
                }
            }
            log.note(at, keys, () -> covered.covered(partition, viewId, collection));
        });
    }

    /** An event that could not be routed: any view of these partitions may be affected, at an unknown time. */
    synchronized void heardEvery(String collection, Collection<String> partitions) {
        Set<String> known = answered.get(collection);
        if (known != null) {
            known.removeAll(partitions);
        }
        Set<String> routed = routedSinceStart.get(collection);
        if (routed != null) {
            routed.removeAll(partitions);
        }
    }

    /**
     * What a handover must run of a view whose previous owner left the given status.
     * @param view the view
     * @param status its status as stored now, or null
     * @param reads the targets of other views of its partition it reads now
     * @return nothing (its previous owner applied every change heard of it), the keys of the changes
     *     after what it applied, or the whole view
     */
    HandoverRun toRun(ViewDefinition view, @Nullable BsonDocument status, Collection<String> reads) {
        Map<String, RecentKeys> logs = heard.getOrDefault(view.partition(), Map.of()).getOrDefault(view.key().id(), Map.of());
        for (String collection : view.collections()) {
            if (!answered.getOrDefault(collection, Set.of()).contains(view.partition())
                    || !view.fingerprint().equals(viewsAtStart.getOrDefault(collection, Map.of()).get(view.key()))) {
                return whole(logs);
            }
        }
        if (!StoredCoverage.current(view, status, reads)) {
            return whole(logs);
        }
        Map<String, AffectedKeys> keys = new HashMap<>();
        Map<String, BsonTimestamp> upTo = new HashMap<>();
        for (Map.Entry<String, RecentKeys> log : logs.entrySet()) {
            // No covered time: the answered position vouches for every event before it, and each one
            // after it was heard here, so the keys of all the events kept do (unless some were forgotten)
            RecentKeys.After after = log.getValue().after(CoveredTimes.of(status, log.getKey()));
            if (after.keys() == null || after.keys().needsFullPass()) {
                return whole(logs);
            }
            if (!after.keys().isEmpty()) {
                keys.put(log.getKey(), after.keys());
            }
            if (after.newest() != null) {
                upTo.put(log.getKey(), after.newest());
            }
        }
        return keys.isEmpty() ? HandoverRun.NOTHING : HandoverRun.keys(keys, upTo);
    }

    /**
     * The view runs whole: its pass reads at or after every event noted of it (the take-over waits
     * for the newest), so it applies each, whatever is known of the events before.
     */
    private static HandoverRun whole(Map<String, RecentKeys> logs) {
        Map<String, BsonTimestamp> upTo = new HashMap<>();
        logs.forEach((collection, log) -> {
            BsonTimestamp newest = log.newest();
            if (newest != null) {
                upTo.put(collection, newest);
            }
        });
        return HandoverRun.whole(upTo);
    }

    /**
     * What a handover runs of a view.
     * @param whole whether it runs whole
     * @param keys per collection, the keys of the changes it runs for (none when whole or nothing)
     * @param heardUpTo per collection, for a view that runs: the newest known time of the events heard
     *     of it, read with the keys — once it ran, whole or for those keys, every change of the
     *     collection up to it that may affect the view is applied, so its status may say so (none when
     *     nothing runs)
     */
    record HandoverRun(boolean whole, Map<String, AffectedKeys> keys, Map<String, BsonTimestamp> heardUpTo) {

        /** The previous owner applied every change heard: nothing to run. */
        static final HandoverRun NOTHING = new HandoverRun(false, Map.of(), Map.of());

        /** What was applied is not known: the whole view. */
        static HandoverRun whole(Map<String, BsonTimestamp> heardUpTo) {
            return new HandoverRun(true, Map.of(), Map.copyOf(heardUpTo));
        }

        static HandoverRun keys(Map<String, AffectedKeys> keys, Map<String, BsonTimestamp> heardUpTo) {
            return new HandoverRun(false, Map.copyOf(keys), Map.copyOf(heardUpTo));
        }

        /** Whether nothing is left to run. */
        boolean isNothing() {
            return !whole && keys.isEmpty();
        }
    }
}
