package dev.materializer.core.write;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewState;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * What the status of a view says once a pass of it ends ok — {@code state: ok}, the time, the
 * fingerprint of its definition, the cluster times it covered and the targets it read — written in
 * the same compare-and-set as the pass's flip or confirmation, so a pass costs no status write of
 * its own. Whether it landed is kept ({@link #landed()}); the new status reaches the registry on the
 * views stream, as every other instance's does, rather than by a read back.
 *
 * <p>What it guarantees: the ok state lands if and only if the pass's result became current (or was
 * confirmed): a pass that gives way writes none of it, as before when the state was written after
 * the flip.
 *
 * <p>Not thread-safe: one pass's, on its lane's thread.
 */
public final class PassStatus {

    private final Instant at;

    private final Map<String, BsonTimestamp> covered;

    private final List<String> reads;

    private boolean landed;

    /**
     * Creates what a pass that ends ok says in its status.
     * @param at when the pass ran (host time), for {@code at}
     * @param covered per collection, the cluster time of the newest change the pass applies
     * @param reads the targets of other views of the partition the pass reads
     */
    public PassStatus(Instant at, Map<String, BsonTimestamp> covered, Collection<String> reads) {
        this.at = at;
        this.covered = Map.copyOf(covered);
        this.reads = List.copyOf(reads);
    }

    /**
     * Whether a flip or confirmation that carried this matched (its transaction, if any, committed):
     * false when none landed (the pass gave way, failed, or its writer took no note).
     */
    public boolean landed() {
        return landed;
    }

    /** Adds the status fields of an ok pass to a flip's or confirmation's update, operator by operator. */
    void addTo(BsonDocument update, ViewDocuments views, ViewDefinition view) {
        BsonDocument state = StatusStore.stateUpdate(views, view, ViewState.OK, null, at, covered, reads);
        for (Map.Entry<String, BsonValue> operator : state.entrySet()) {
            BsonValue existing = update.get(operator.getKey());
            if (existing == null) {
                update.append(operator.getKey(), operator.getValue().asDocument().clone());
            }
            else {
                // The paths of the state and of the flip are apart (state, at, lastError, fingerprint, reads, covered)
                existing.asDocument().putAll(operator.getValue().asDocument());
            }
        }
    }

    /** A compare-and-set that carried this in a transaction that did not commit: nothing of it landed. */
    void forget() {
        this.landed = false;
    }

    /** Whether the compare-and-set that carried this matched. */
    void landed(boolean matched) {
        this.landed = matched;
    }
}
