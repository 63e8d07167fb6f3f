package dev.materializer.core.engine;

import java.util.Collection;
import java.util.Map;
import java.util.Set;

import dev.materializer.core.view.CoveredTimes;
import dev.materializer.core.Generation;
import dev.materializer.core.GenerationPlace;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.write.StatusStore;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Whether a view's stored status shows that a pass — of this instance or any other — applied every
 * change of its collections up to given cluster times, so a pass here may let the view go for them.
 *
 * <p>What it guarantees: true only when the status is {@code ok} for the view's current definition
 * (fingerprint), its generation is in the view's place (target and partition), it was written having
 * read the targets the view reads now, and its {@code covered} time of each collection given is at or
 * after the time given. Anything missing or of another shape answers false: the view runs (fail safe).
 *
 * <p>Thread-safe: stateless.
 */
final class StoredCoverage {

    private StoredCoverage() {
    }

    /**
     * Whether the status covers the times.
     * @param view the view
     * @param status its status as stored now, or null
     * @param reads the targets of other views of its partition it reads now
     * @param times per collection, the cluster time of the newest change to be covered
     * @return true when a pass applied every change of those collections up to those times
     */
    static boolean covers(ViewDefinition view, @Nullable BsonDocument status, Collection<String> reads,
            Map<String, BsonTimestamp> times) {
        if (!current(view, status, reads)) {
            return false;
        }
        for (Map.Entry<String, BsonTimestamp> newest : times.entrySet()) {
            BsonTimestamp covered = CoveredTimes.of(status, newest.getKey());
            if (covered == null || covered.compareTo(newest.getValue()) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether the status is an ok run of the view's current definition, in its place, over what it reads now. */
    static boolean current(ViewDefinition view, @Nullable BsonDocument status, Collection<String> reads) {
        if (status == null || !ViewState.OK.storedValue().equals(stringOf(status, "state"))
                || !view.fingerprint().equals(stringOf(status, StatusStore.FINGERPRINT_FIELD))
                || !StatusStore.readsOf(status).equals(Set.copyOf(reads))) {
            return false;
        }
        Generation generation = ViewStatus.fromBson(status).generation();
        return generation != null && !generation.isLegacy()
                && GenerationPlace.fits(GenerationPlace.of(status), view.targetCollection(), view.partition());
    }

    private static @Nullable String stringOf(BsonDocument status, String field) {
        BsonValue value = status.get(field);
        return value != null && value.isString() ? value.asString().getValue() : null;
    }
}
