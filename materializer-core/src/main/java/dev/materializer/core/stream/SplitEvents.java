package dev.materializer.core.stream;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Puts the fragments of an event that {@code $changeStreamSplitLargeEvent} split (each with
 * {@code splitEvent: {fragment, of}}) back into one event, so routing sees the event the server
 * would have sent under 16 MB. The whole event's {@code _id} is the last fragment's token: a stream
 * resumed from it starts at the next event, where a fragment's own token would resume in the
 * middle of this one.
 *
 * <p>One per cursor, on the stream's thread; not thread-safe.
 */
final class SplitEvents {

    private @Nullable BsonDocument collected;

    private int next;

    private int of;

    /**
     * Takes the next event of the cursor.
     * @param event an event as the server sent it, whole or a fragment
     * @return the whole event once it is complete; null while fragments are still to come
     * @throws IllegalStateException when the fragments do not follow one another (the stream must
     *     reopen from its last whole event)
     */
    @Nullable BsonDocument add(BsonDocument event) {
        BsonValue split = event.get("splitEvent");
        if (split == null || !split.isDocument()) {
            if (collected != null) {
                collected = null;
                throw new IllegalStateException("a whole event came while fragment " + next + " of " + of
                        + " was awaited");
            }
            return event;
        }
        int fragment = number(split.asDocument(), "fragment");
        int total = number(split.asDocument(), "of");
        if (fragment == 1 && collected == null && total >= 1) {
            collected = new BsonDocument();
            of = total;
            next = 1;
        }
        if (collected == null || fragment != next || total != of) {
            String awaited = collected == null ? "the first fragment" : "fragment " + next + " of " + of;
            collected = null;
            throw new IllegalStateException("fragment " + fragment + " of " + total + " came while " + awaited
                    + " was awaited");
        }
        BsonDocument into = collected;
        event.forEach((name, value) -> {
            if (!name.equals("_id") && !name.equals("splitEvent")) {
                into.put(name, value);
            }
        });
        if (fragment < of) {
            next++;
            return null;
        }
        collected = null;
        BsonDocument whole = new BsonDocument("_id", event.get("_id"));
        whole.putAll(into);
        return whole;
    }

    /** Whether fragments of an event are still to come: no token of the cursor may be saved meanwhile. */
    boolean inTheMiddle() {
        return collected != null;
    }

    private static int number(BsonDocument split, String field) {
        BsonValue value = split.get(field);
        return value != null && value.isNumber() ? value.asNumber().intValue() : -1;
    }
}
