package dev.materializer.core.incremental;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The marks of one view gathered as its changes come: the union of their {@link AffectedKeys},
 * kept in growing sets rather than rebuilt at each mark.
 *
 * <p>What it guarantees: {@link #affectedKeys()} names everything any mark added names (so a pass
 * it plans is never narrower than the union), or is a full pass — when a mark was one (the first
 * reason is kept), or when more than {@link PassPlanner#MAX_KEYS} keys, unknown old keys and values
 * of key queries were named together: past that bound a whole pass is cheaper, and from then on it
 * keeps nothing more. Adding a mark costs what that mark holds, never a copy of what is kept
 * (amortised O(1) per element), and the sets never grow past the bound.
 *
 * <p>Not thread-safe: the scheduler's marks hold it under the scheduler's lock.
 */
public final class KeyMarks {

    private final Set<GroupKey> keys = new LinkedHashSet<>();

    private final Map<GroupKey, BsonValue> unknownOldKeyOf = new LinkedHashMap<>();

    private final Map<String, Set<GroupKey>> joins = new LinkedHashMap<>();

    /** The keys, unknown ids and join values kept, each once. */
    private int size;

    private @Nullable String fullPassReason;

    /** The elements the adds went through; see {@link #elementsCopied()}. */
    private long elementsCopied;

    /** No mark yet: nothing affected. */
    public KeyMarks() {
    }

    /**
     * Adds what one mark, or a union of marks, affects.
     * @param mark the keys of a change (or a full pass)
     */
    public void add(AffectedKeys mark) {
        if (fullPassReason != null) {
            return;
        }
        if (mark.needsFullPass()) {
            becomeWhole(String.valueOf(mark.fullPassReason()));
            return;
        }
        addParts(mark.heldKeys(), mark.heldUnknownOldKeyOf(), mark.heldJoins());
    }

    /**
     * Adds what other marks hold; they are left as they are.
     * @param other the other marks
     */
    public void addAll(KeyMarks other) {
        if (fullPassReason != null) {
            return;
        }
        if (other.fullPassReason != null) {
            becomeWhole(other.fullPassReason);
            return;
        }
        addParts(other.keys, other.unknownOldKeyOf, other.joins);
    }

    /** A copy that changes apart from these marks. */
    public KeyMarks copy() {
        KeyMarks copy = new KeyMarks();
        copy.addAll(this);
        return copy;
    }

    /** Whether the pass of the view must be whole. */
    public boolean needsFullPass() {
        return fullPassReason != null;
    }

    /**
     * What the marks affect together, built anew (once per pass: it copies what is kept).
     * @return the union of the marks, or a full pass with its reason
     */
    public AffectedKeys affectedKeys() {
        if (fullPassReason != null) {
            return AffectedKeys.fullPass(fullPassReason);
        }
        return new AffectedKeys(keys, unknownOldKeyOf, joins, null);
    }

    /**
     * The elements (keys, ids, join values) the adds went through, counted once each per add: what
     * merging costs, for tests and benchmarks that it is linear in the marks, not quadratic.
     * @return the count since this object was made
     */
    public long elementsCopied() {
        return elementsCopied;
    }

    private void addParts(Set<GroupKey> moreKeys, Map<GroupKey, BsonValue> moreUnknown,
            Map<String, Set<GroupKey>> moreJoins) {
        for (GroupKey key : moreKeys) {
            elementsCopied++;
            if (keys.add(key) && ++size > PassPlanner.MAX_KEYS) {
                becomeWhole(PassPlanner.TOO_MANY_KEYS);
                return;
            }
        }
        for (Map.Entry<GroupKey, BsonValue> entry : moreUnknown.entrySet()) {
            elementsCopied++;
            if (unknownOldKeyOf.putIfAbsent(entry.getKey(), entry.getValue()) == null && ++size > PassPlanner.MAX_KEYS) {
                becomeWhole(PassPlanner.TOO_MANY_KEYS);
                return;
            }
        }
        for (Map.Entry<String, Set<GroupKey>> join : moreJoins.entrySet()) {
            Set<GroupKey> values = joins.computeIfAbsent(join.getKey(), path -> new LinkedHashSet<>());
            for (GroupKey value : join.getValue()) {
                elementsCopied++;
                if (values.add(value) && ++size > PassPlanner.MAX_KEYS) {
                    becomeWhole(PassPlanner.TOO_MANY_KEYS);
                    return;
                }
            }
        }
    }

    /** From now on a full pass: what is kept goes, and later marks add nothing. */
    private void becomeWhole(String reason) {
        fullPassReason = reason;
        keys.clear();
        unknownOldKeyOf.clear();
        joins.clear();
        size = 0;
    }
}
