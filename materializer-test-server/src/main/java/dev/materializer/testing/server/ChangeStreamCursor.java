package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import de.bwaldvogel.mongo.backend.AbstractCursor;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;

/**
 * The cursor of one change stream on one collection: each batch reads the entries after its
 * position, makes their events, passes each through the stream's pipeline, and moves past every
 * entry it read, whether the pipeline kept its event or not. After a drop of the collection it
 * gives the {@code invalidate} event and closes, as MongoDB does.
 *
 * <p>Threads: the server calls it from one connection's thread at a time; it is synchronized anyway.
 */
final class ChangeStreamCursor extends AbstractCursor {

    /**
     * The entries read for one batch at most: MongoDB fills a batch up to 16 MB, so a command's
     * thousands of events usually come in one.
     */
    private static final int ENTRIES_PER_BATCH = 50_000;

    private final ChangeLog log;

    private final String namespace;

    private final ChangeStreamOptions options;

    private final Aggregation pipeline;

    private long position;

    private boolean invalidated;

    ChangeStreamCursor(long cursorId, ChangeLog log, String namespace, ChangeStreamOptions options,
            Aggregation pipeline) {
        super(cursorId);
        this.log = log;
        this.namespace = namespace;
        this.options = options;
        this.pipeline = pipeline;
        this.position = options.start();
    }

    @Override
    public synchronized boolean isEmpty() {
        return invalidated;
    }

    @Override
    public synchronized List<Document> takeDocuments(int numberToReturn) {
        List<Document> events = new ArrayList<>();
        if (invalidated) {
            return events;
        }
        int wanted = numberToReturn > 0 ? numberToReturn : ENTRIES_PER_BATCH;
        for (ChangeLog.Entry entry : log.after(position, namespace, ENTRIES_PER_BATCH)) {
            if (events.size() >= wanted) {
                break;
            }
            position = entry.timestamp();
            pipeline.runStagesAsStream(Stream.of(log.event(entry, options))).forEach(events::add);
            if (entry.operation() == ChangeLog.Operation.DROP) {
                events.add(ChangeLog.invalidate(entry));
                invalidated = true;
                break;
            }
        }
        return events;
    }
}
