package dev.materializer.testing.server;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;

/**
 * The resume token of an event: {@code {_data: <hex>}}, the cluster time of its entry in 16 hex
 * digits, with a suffix for the {@code invalidate} event that follows a drop at that time.
 *
 * @param timestamp the cluster time, as a {@code BsonTimestamp} value
 * @param invalidate whether it is the token of an invalidate event
 */
record ResumeToken(long timestamp, boolean invalidate) {

    private static final String INVALIDATE_SUFFIX = "ff";

    static Document of(long timestamp, boolean invalidate) {
        String hex = String.format("%016x", timestamp);
        return new Document("_data", invalidate ? hex + INVALIDATE_SUFFIX : hex);
    }

    /** Reads a token this server made; refuses any other, naming it. */
    static ResumeToken parse(Object token) {
        if (token instanceof Document document && document.get("_data") instanceof String data
                && (data.length() == 16 || data.length() == 16 + INVALIDATE_SUFFIX.length())) {
            try {
                return new ResumeToken(Long.parseUnsignedLong(data.substring(0, 16), 16), data.length() > 16);
            }
            catch (NumberFormatException ex) {
                // refused below
            }
        }
        throw new MongoServerError(260, "InvalidResumeToken",
                "the in-process test server cannot read the resume token " + token + ": it reads only its own tokens");
    }
}
