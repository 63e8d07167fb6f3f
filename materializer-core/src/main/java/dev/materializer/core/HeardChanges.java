package dev.materializer.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewKey;
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
 * and view, the cluster time of the newest event routed to it ({@link #heard}), recorded before the
 * stream asks who owns the partition, so a pass that sees the partition owned sees every event that
 * was not marked for it. Memory: one time per view and collection it reads.
 *
 * <p>What it guarantees ({@link #applied}): a view is let go by a handover only when its stored
 * status says {@code ok} for its current definition, in its place, having read the targets it reads
 * now, and covers — per collection it reads, for which this instance heard the partition from an
 * answered position on — every event heard of it (its {@code covered} time at or after the newest).
 * Anything not known (an event without a cluster time, a routing failure, a stream started from now,
 * a partition that appeared after the stream opened, a view registered or redefined here after it
 * opened) makes the view run: fail safe. What a status
 * must say is {@link StoredCoverage}'s, shared with the check of replayed changes.
 *
 * <p>Thread-safe: the streams write, the lanes read; concurrent maps.
 */
final class HeardChanges {

    /** Stands for an event whose time is unknown: no covered time reaches it. */
    private static final BsonTimestamp UNKNOWN = new BsonTimestamp(Integer.MAX_VALUE, Integer.MAX_VALUE);

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

    /** Per partition, per view id, per collection: the cluster time of the newest event routed to it. */
    private final Map<String, Map<String, Map<String, BsonTimestamp>>> heard = new ConcurrentHashMap<>();

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

    /** An event routed to some views of a partition; its time null when unknown. */
    void heard(String collection, String partition, Collection<String> viewIds, @Nullable BsonTimestamp time) {
        BsonTimestamp at = time == null ? UNKNOWN : time;
        Map<String, Map<String, BsonTimestamp>> views = heard.computeIfAbsent(partition, key -> new ConcurrentHashMap<>());
        for (String viewId : viewIds) {
            views.computeIfAbsent(viewId, key -> new ConcurrentHashMap<>())
                .merge(collection, at, (one, other) -> one.compareTo(other) >= 0 ? one : other);
        }
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
     * Whether the view's previous owner applied every change this instance heard of it.
     * @param view the view
     * @param status its status as stored now, or null
     * @param reads the targets of other views of its partition it reads now
     */
    boolean applied(ViewDefinition view, @Nullable BsonDocument status, Collection<String> reads) {
        for (String collection : view.collections()) {
            if (!answered.getOrDefault(collection, Set.of()).contains(view.partition())
                    || !view.fingerprint().equals(viewsAtStart.getOrDefault(collection, Map.of()).get(view.key()))) {
                return false;
            }
        }
        return StoredCoverage.covers(view, status, reads,
                heard.getOrDefault(view.partition(), Map.of()).getOrDefault(view.key().id(), Map.of()));
    }
}
