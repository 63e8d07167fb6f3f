package dev.materializer.testing.server;

import java.util.Set;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;

/**
 * The options of a {@code $changeStream} stage this server honours: where it starts, and which
 * images its events carry. An option it does not know is refused, naming it.
 *
 * @param start the timestamp after which events are read
 * @param fullDocument the post-image of update events
 * @param fullDocumentBeforeChange the pre-image of update, replace and delete events
 */
record ChangeStreamOptions(long start, Image fullDocument, Image fullDocumentBeforeChange) {

    private static final Set<String> KNOWN = Set.of("fullDocument", "fullDocumentBeforeChange", "resumeAfter",
            "startAfter", "startAtOperationTime", "showExpandedEvents", "allChangesForCluster");

    /** The ways an event may carry an image. */
    enum Image {
        /** None. */
        OFF,
        /** The current document, looked up ({@code fullDocument: updateLookup}). */
        LOOKUP,
        /** The kept image, or null. */
        WHEN_AVAILABLE,
        /** The kept image, or the stream fails. */
        REQUIRED
    }

    static ChangeStreamOptions parse(Document stage, ChangeLog log) {
        for (String option : stage.keySet()) {
            if (!KNOWN.contains(option)) {
                throw new MongoServerError(40415, "Location40415",
                        "the in-process test server does not know the $changeStream option '" + option + "'");
            }
        }
        if (Boolean.TRUE.equals(stage.get("allChangesForCluster"))) {
            throw new MongoServerError(115, "CommandNotSupported",
                    "the in-process test server offers change streams on a collection only, not on a cluster");
        }
        long start;
        if (stage.get("startAfter") != null) {
            start = ResumeToken.parse(stage.get("startAfter")).timestamp();
        }
        else if (stage.get("resumeAfter") != null) {
            ResumeToken token = ResumeToken.parse(stage.get("resumeAfter"));
            if (token.invalidate()) {
                throw new MongoServerError(260, "InvalidResumeToken",
                        "Cannot resume after an invalidate event; use startAfter to start a new stream");
            }
            start = token.timestamp();
        }
        else if (stage.get("startAtOperationTime") instanceof BsonTimestamp time) {
            start = time.getValue() - 1;
        }
        else {
            start = log.latest();
        }
        Image post = switch (String.valueOf(stage.getOrDefault("fullDocument", "default"))) {
            case "default" -> Image.OFF;
            case "updateLookup" -> Image.LOOKUP;
            case "whenAvailable" -> Image.WHEN_AVAILABLE;
            case "required" -> Image.REQUIRED;
            default -> throw new MongoServerError(9, "FailedToParse", "fullDocument must be one of 'default',"
                    + " 'updateLookup', 'whenAvailable' or 'required', not " + stage.get("fullDocument"));
        };
        Image pre = switch (String.valueOf(stage.getOrDefault("fullDocumentBeforeChange", "off"))) {
            case "off" -> Image.OFF;
            case "whenAvailable" -> Image.WHEN_AVAILABLE;
            case "required" -> Image.REQUIRED;
            default -> throw new MongoServerError(9, "FailedToParse", "fullDocumentBeforeChange must be one of 'off',"
                    + " 'whenAvailable' or 'required', not " + stage.get("fullDocumentBeforeChange"));
        };
        return new ChangeStreamOptions(start, post, pre);
    }
}
