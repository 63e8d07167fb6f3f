package dev.materializer.core.view;

import java.util.Map;
import java.util.function.UnaryOperator;

import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The status field {@code covered}: per collection a view depends on, the cluster time of the
 * newest change of it that a pass of the view has applied — every change of that collection up to
 * that time is in the view's rows. Waits for freshness on an instance that does not own the view's
 * partition read it. Each time only grows: it is written with {@code $max}.
 *
 * <p>A collection name may hold dots, which a field path cannot: the key escapes {@code %} and
 * {@code .} as {@code %25} and {@code %2E}.
 */
public final class CoveredTimes {

    /** The field in the status. */
    public static final String FIELD = "covered";

    private CoveredTimes() {
    }

    /**
     * The key of a collection in the field.
     * @param collection the collection name
     * @return the key, without dots
     */
    public static String key(String collection) {
        return collection.replace("%", "%25").replace(".", "%2E");
    }

    /**
     * The {@code $max} operand that raises the times of some collections.
     * @param statusPath the path of a status field in the view document
     * @param times per collection, the newest cluster time applied
     * @return the operand, empty for no times
     */
    public static BsonDocument raise(UnaryOperator<String> statusPath, Map<String, BsonTimestamp> times) {
        BsonDocument max = new BsonDocument();
        times.forEach((collection, time) -> max.append(statusPath.apply(FIELD + "." + key(collection)), time));
        return max;
    }

    /**
     * The time of a collection in a status.
     * @param status the status field, when present
     * @param collection the collection name
     * @return the cluster time applied, or null when none is recorded
     */
    public static @Nullable BsonTimestamp of(@Nullable BsonDocument status, String collection) {
        BsonValue covered = status == null ? null : status.get(FIELD);
        if (covered == null || !covered.isDocument()) {
            return null;
        }
        BsonValue time = covered.asDocument().get(key(collection));
        return time != null && time.isTimestamp() ? time.asTimestamp() : null;
    }
}
