package dev.materializer.core.pass;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BinaryOperator;

import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.KeyMarks;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * What changed in one partition since its last pass: per source, either every view reading it is
 * affected, or only the views whose {@code sourceFields} the changes touched — or, for a catch-up,
 * everything. Per view it also keeps the keys of its rows the changes affect, for a key-scoped
 * pass; any mark that names no keys makes the view's pass whole (fail safe: never fewer rows), and
 * so do more than {@code PassPlanner.MAX_KEYS} keys and values of key queries, after which the view
 * keeps nothing more: a mark costs what it names, never a copy of what is kept. So an update that
 * touches none of a view's fields does not run that view, even when it runs another view of the
 * same partition. Marks of events a stream replays after it resumed from a checkpoint are kept apart
 * per view ({@link #addReplayed}): a pass may let a view go whose marks are all such and whose stored
 * status covers them.
 *
 * <p>Not thread-safe: the scheduler owns the set it collects marks in, under its lock; a pass works
 * on a {@link #copy()} of its own, so the scheduler can read what a pass took while it runs.
 */
public final class DirtySources {

    /** The later of two cluster times: what every time kept here keeps when another comes. */
    private static final BinaryOperator<BsonTimestamp> LATER = BinaryOperator.maxBy(Comparator.naturalOrder());

    /** Per source, the affected view ids; null means every view reading the source. */
    private final Map<String, @Nullable Set<String>> bySource = new HashMap<>();

    /**
     * Per view, the keys its marks affect (see {@link #keysOf}), bounded and merged in linear time
     * ({@link KeyMarks}). A view marked without keys is here with a full pass, so keys never narrow
     * what another mark of the view asked for.
     */
    private final Map<String, KeyMarks> keysByView = new HashMap<>();

    /** The keys of a mark that named none: a full pass. */
    private static final AffectedKeys UNKEYED = AffectedKeys.fullPass("a change that names no keys (a retry, a restart, a first run)");

    private static final AffectedKeys CATCH_UP = AffectedKeys.fullPass("a catch-up of the partition");

    /** A catch-up: every view of the partition, whatever it reads. */
    private boolean everything;

    /**
     * A handover: every view of the partition, unless the pass proves its previous owner applied
     * every change this instance heard of it ({@link #withoutHandover}); until then, as a catch-up.
     */
    private boolean handover;

    private static final AffectedKeys HANDOVER = AffectedKeys.fullPass("a partition taken over");

    /** The cluster time of the newest event marked, when known: a pass reads at or after it. */
    private @Nullable BsonTimestamp clusterTime;

    /** Per source, the cluster time of its newest event marked, when known: what a pass covers of it. */
    private final Map<String, BsonTimestamp> newestBySource = new HashMap<>();

    /**
     * Per view, per source, the cluster time of the newest event of a stream's replay marked for it
     * ({@link #addReplayed}): marks another instance may have applied while this one was away.
     */
    private final Map<String, Map<String, BsonTimestamp>> replayed = new HashMap<>();

    /**
     * Per view, per source, the newest time of the events a take-over ran the view for, whole or by
     * keys ({@link #withoutHandover}): once the view ran with these marks, read at or after that time,
     * every change of the source up to it that may affect the view is applied, so its status may say so.
     */
    private final Map<String, Map<String, BsonTimestamp>> takenOver = new HashMap<>();

    /** The views with a mark besides replayed ones: they run, whatever their status says. */
    private final Set<String> firm = new HashSet<>();

    /**
     * Marks a source changed for every view reading it.
     * @param source the source
     */
    public void addAll(String source) {
        bySource.put(source, null);
    }

    /**
     * Marks a source changed for some views only.
     * @param source the source
     * @param viewIds the views the change may affect
     */
    public void add(String source, Collection<String> viewIds) {
        addViews(source, viewIds);
        firm.addAll(viewIds);
        for (String viewId : viewIds) {
            addKeys(viewId, UNKEYED);
        }
    }

    /**
     * Marks a source changed for some views, with the keys of their rows the change affects.
     * @param source the source
     * @param keysByView per affected view, the keys the change affects (or a full pass)
     */
    public void add(String source, Map<String, AffectedKeys> keysByView) {
        addViews(source, keysByView.keySet());
        firm.addAll(keysByView.keySet());
        keysByView.forEach(this::addKeys);
    }

    /**
     * Marks a source changed for some views by an event a stream replays after it resumed from a
     * saved checkpoint: as {@link #add(String, Map)}, but a pass may let a view go whose stored
     * status covers every replayed event marked for it ({@link #replayedOnly}, {@link #without}),
     * as another instance applied them while this one was away.
     * @param source the source
     * @param keysByView per affected view, the keys the change affects (or a full pass)
     * @param time the event's cluster time
     */
    public void addReplayed(String source, Map<String, AffectedKeys> keysByView, BsonTimestamp time) {
        addViews(source, keysByView.keySet());
        keysByView.forEach(this::addKeys);
        for (String viewId : keysByView.keySet()) {
            noteReplayed(viewId, source, time);
        }
        noteClusterTime(source, time);
    }

    private void noteReplayed(String viewId, String source, BsonTimestamp time) {
        raise(replayed, viewId, source, time);
    }

    /** Keeps, per view and source, the later of the times noted. */
    private static void raise(Map<String, Map<String, BsonTimestamp>> byView, String viewId, String source,
            BsonTimestamp time) {
        byView.computeIfAbsent(viewId, key -> new HashMap<>()).merge(source, time, LATER);
    }

    /** Whether some view is marked by replayed events ({@link #addReplayed}). */
    public boolean hasReplayed() {
        return !replayed.isEmpty();
    }

    /**
     * When every mark of a view is a replayed event of a known time: per source, the newest of them.
     * @param viewId the view's id
     * @param sources the view's sources
     * @return the times; null when the view has any other mark (a catch-up, a handover, a change
     *     heard live, a retry, a source marked for every view) or no replayed one
     */
    public @Nullable Map<String, BsonTimestamp> replayedOnly(String viewId, Collection<String> sources) {
        Map<String, BsonTimestamp> times = replayed.get(viewId);
        if (times == null || everything || handover || firm.contains(viewId)) {
            return null;
        }
        for (String source : sources) {
            if (bySource.containsKey(source) && bySource.get(source) == null) {
                return null;
            }
        }
        return Map.copyOf(times);
    }

    /**
     * The same marks without some views marked by replayed events only ({@link #replayedOnly}):
     * what a pass runs once it knows their stored statuses cover them.
     * @param viewIds the views to let go
     * @return a new set
     */
    public DirtySources without(Set<String> viewIds) {
        DirtySources copy = copy();
        for (String viewId : viewIds) {
            if (copy.firm.contains(viewId) || copy.everything || copy.handover) {
                throw new IllegalArgumentException("view " + viewId + " has marks besides replayed ones");
            }
            copy.replayed.remove(viewId);
            copy.keysByView.remove(viewId);
            // A source marked for every view is not one the view reads (replayedOnly said so)
            copy.bySource.values().stream().filter(Objects::nonNull).forEach(views -> views.remove(viewId));
        }
        copy.bySource.values().removeIf(views -> views != null && views.isEmpty());
        return copy;
    }

    private void addViews(String source, Collection<String> viewIds) {
        if (bySource.containsKey(source) && bySource.get(source) == null) {
            return;
        }
        bySource.computeIfAbsent(source, key -> new HashSet<>()).addAll(viewIds);
    }

    /**
     * The keys, ids and join values the merges of the views' keys went through
     * ({@link KeyMarks#elementsCopied()}): for tests and benchmarks that merging is linear.
     * @return the count
     */
    public long elementsCopied() {
        long copied = 0;
        for (KeyMarks marks : keysByView.values()) {
            copied += marks.elementsCopied();
        }
        return copied;
    }

    private void addKeys(String viewId, AffectedKeys keys) {
        keysByView.computeIfAbsent(viewId, key -> new KeyMarks()).add(keys);
    }

    /**
     * What a view's pass must recompute: the keys its marks affect, or a full pass (with why) when
     * any mark of it did not say, the partition catches up, or a source it reads was marked for
     * every view.
     * @param viewId the view's id
     * @param sources the view's sources
     * @return the keys, or a full pass
     */
    public AffectedKeys keysOf(String viewId, Collection<String> sources) {
        if (everything) {
            return CATCH_UP;
        }
        if (handover) {
            return HANDOVER;
        }
        for (String source : sources) {
            if (bySource.containsKey(source) && bySource.get(source) == null) {
                return AffectedKeys.fullPass("every view reading " + source + " was marked");
            }
        }
        KeyMarks keys = keysByView.get(viewId);
        return keys == null ? UNKEYED : keys.affectedKeys();
    }

    /**
     * Notes the cluster time of an event marked here; the set keeps the newest.
     * @param time the event's cluster time, or null when unknown
     */
    public void noteClusterTime(@Nullable BsonTimestamp time) {
        if (time != null && (clusterTime == null || time.compareTo(clusterTime) > 0)) {
            clusterTime = time;
        }
    }

    /**
     * Notes the cluster time of an event of a source marked here; the set keeps the newest, overall
     * and per source.
     * @param source the source of the event
     * @param time the event's cluster time, or null when unknown
     */
    public void noteClusterTime(String source, @Nullable BsonTimestamp time) {
        noteClusterTime(time);
        if (time != null) {
            newestBySource.merge(source, time, LATER);
        }
    }

    /** The cluster time of the newest event marked, when known. */
    public @Nullable BsonTimestamp clusterTime() {
        return clusterTime;
    }

    /**
     * The cluster time of the newest event of a source marked here: a pass that took this set and
     * ran a view reading the source applied every change of it up to that time (a stream hands its
     * events over in order).
     * @param source the source
     * @return the time, or null when no event of the source with a known time is marked
     */
    public @Nullable BsonTimestamp clusterTimeOf(String source) {
        return newestBySource.get(source);
    }

    /** Marks every view of the partition, whatever it reads: a catch-up. */
    public void addEverything() {
        everything = true;
    }

    /**
     * Marks the partition taken over from another instance: every view of it runs, as for a
     * catch-up, but a pass may let go of the views whose previous owner, by its status, applied
     * every change this instance heard of them ({@link #withoutHandover}).
     */
    public void addHandover() {
        handover = true;
    }

    /** Whether the partition was taken over since its last pass. */
    public boolean handover() {
        return handover;
    }

    /**
     * The same marks without the handover, with what the views must still run for it marked: what a
     * pass runs once it knows what their previous owner left unapplied. A view named in neither map
     * keeps only its other marks.
     * @param whole the views (id and sources) the handover runs whole
     * @param keyed per view id, per source, the keys of the changes its previous owner did not apply
     * @param heardUpTo per view id that runs, per source, the newest time of the changes heard of it
     *     when it was judged ({@link #takenOverUpTo})
     * @return a new set
     */
    public DirtySources withoutHandover(Map<String, ? extends Collection<String>> whole,
            Map<String, Map<String, AffectedKeys>> keyed, Map<String, Map<String, BsonTimestamp>> heardUpTo) {
        DirtySources copy = copy();
        copy.handover = false;
        whole.forEach((viewId, sources) -> sources.forEach(source -> copy.add(source, List.of(viewId))));
        keyed.forEach((viewId, keysBySource) -> keysBySource.forEach((source, keys) -> copy.add(source,
                Map.of(viewId, keys))));
        heardUpTo.forEach((viewId, times) -> times.forEach((source, time) -> copy.noteTakenOver(viewId, source, time)));
        return copy;
    }

    /**
     * Per source, the time up to which a take-over's marks of a view account for every change heard
     * of it: a pass that runs the view with them applied every change of the source up to then.
     * @param viewId the view's id
     * @return per source, the time; empty when the view has no such marks
     */
    public Map<String, BsonTimestamp> takenOverUpTo(String viewId) {
        return takenOver.getOrDefault(viewId, Map.of());
    }

    /**
     * The newest of the times the take-over's marks account for, over every view.
     * @return the time, null when none
     */
    public @Nullable BsonTimestamp newestTakenOver() {
        BsonTimestamp newest = null;
        for (Map<String, BsonTimestamp> times : takenOver.values()) {
            for (BsonTimestamp time : times.values()) {
                if (newest == null || time.compareTo(newest) > 0) {
                    newest = time;
                }
            }
        }
        return newest;
    }

    private void noteTakenOver(String viewId, String source, BsonTimestamp time) {
        raise(takenOver, viewId, source, time);
    }

    /**
     * Adds what another set marks.
     * @param other the other set
     */
    public void addAll(DirtySources other) {
        everything |= other.everything;
        handover |= other.handover;
        firm.addAll(other.firm);
        other.replayed.forEach((viewId, times) -> times.forEach((source, time) -> noteReplayed(viewId, source, time)));
        other.takenOver.forEach((viewId, times) -> times.forEach((source, time) -> noteTakenOver(viewId, source, time)));
        noteClusterTime(other.clusterTime);
        other.newestBySource.forEach(this::noteClusterTime);
        other.bySource.forEach((source, views) -> {
            if (views == null) {
                addAll(source);
            }
            else {
                addViews(source, views);
            }
        });
        other.keysByView.forEach((viewId, keys) -> keysByView.computeIfAbsent(viewId, key -> new KeyMarks()).addAll(keys));
    }

    /**
     * Whether a view must run: a catch-up, or it reads a source marked for every view, or for it.
     * @param viewId the view's id
     * @param sources the view's sources
     * @return true when the view is affected
     */
    public boolean affects(String viewId, Collection<String> sources) {
        if (everything || handover) {
            return true;
        }
        for (String source : sources) {
            if (bySource.containsKey(source)) {
                Set<String> views = bySource.get(source);
                if (views == null || views.contains(viewId)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether the source is marked at all (a catch-up marks every source). */
    public boolean contains(String source) {
        return everything || handover || bySource.containsKey(source);
    }

    /** Whether this is a catch-up of the whole partition. */
    public boolean everything() {
        return everything;
    }

    /** The sources marked one by one. */
    public Set<String> sources() {
        return Set.copyOf(bySource.keySet());
    }

    /** Whether nothing is marked. */
    public boolean isEmpty() {
        return !everything && !handover && bySource.isEmpty();
    }

    /** A copy that changes apart from this set. */
    public DirtySources copy() {
        DirtySources copy = new DirtySources();
        copy.addAll(this);
        return copy;
    }

    @Override
    public String toString() {
        return everything ? "everything" : handover ? "handover " + bySource : bySource.toString();
    }
}
