package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.List;

import de.bwaldvogel.mongo.backend.AbstractCursor;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.bson.Document;

/**
 * Makes mongo-java-server answer an {@code aggregate} in batches, as MongoDB does. mongo-java-server
 * (1.47) computes an aggregation's whole result and puts all of it in the first batch of its reply,
 * whatever the {@code cursor.batchSize} of the command (a {@code find} honours its
 * {@code batchSize}); so a client that asks for batches of 1,000 gets 100,000 documents at once,
 * and the driver holds them all until the last is read. That is this server's doing, not the
 * client's: MongoDB returns the first {@code batchSize} documents and keeps the rest behind a cursor
 * that {@code getMore}s read, {@code batchSize} at a time (16 MiB at most per batch).
 *
 * <p>{@link #split} takes the reply the server built and, when the command asked for a
 * {@code cursor.batchSize} and the first batch has more documents than that, keeps the first
 * {@code batchSize} in the reply and registers the rest as a server cursor in the backend's
 * {@link CursorRegistry}, the one {@code find} cursors use: the server's own {@code getMore} and
 * {@code killCursors} serve and end it. Not emulated: the 16 MiB bound per batch (a batch of 1,000
 * small rows is far below it) and the first batch of 101 documents when no {@code batchSize} is
 * given (this server's {@code find} returns everything then, and so does an aggregate here).
 * Change streams are left alone: this server already serves them by cursor.
 */
final class AggregateBatches {

    private AggregateBatches() {
    }

    /**
     * The reply to an {@code aggregate}, its first batch cut to the command's {@code cursor.batchSize}.
     * @param command the aggregate command as received
     * @param reply the reply the server built (its whole result in the first batch), changed in place
     * @param cursors where the rest goes, for the server's getMore
     * @return the reply
     */
    static Document split(Document command, Document reply, CursorRegistry cursors) {
        int batchSize = batchSizeOf(command);
        if (batchSize <= 0 || !(reply.get("cursor") instanceof Document cursor)
                || !(cursor.get("id") instanceof Number id) || id.longValue() != 0
                || !(cursor.get("firstBatch") instanceof List<?> batch) || batch.size() <= batchSize) {
            return reply;
        }
        List<Document> first = new ArrayList<>(batchSize);
        List<Document> rest = new ArrayList<>(batch.size() - batchSize);
        for (int index = 0; index < batch.size(); index++) {
            (index < batchSize ? first : rest).add((Document) batch.get(index));
        }
        Remaining remaining = new Remaining(cursors.generateCursorId(), rest);
        cursors.add(remaining);
        cursor.put("id", remaining.getId());
        cursor.put("firstBatch", first);
        return reply;
    }

    /** The {@code cursor.batchSize} of an aggregate command, 0 when it has none. */
    static int batchSizeOf(Document command) {
        if (command.get("cursor") instanceof Document cursor && cursor.get("batchSize") instanceof Number size) {
            return size.intValue();
        }
        return 0;
    }

    /**
     * The rest of an aggregation's result, served by the server's {@code getMore}s in order.
     */
    static final class Remaining extends AbstractCursor {

        private final List<Document> documents;

        private int next;

        Remaining(long id, List<Document> documents) {
            super(id);
            this.documents = documents;
        }

        @Override
        public synchronized boolean isEmpty() {
            return next >= documents.size();
        }

        /** The next {@code numberToReturn} documents; all that are left when it is 0 or less (a getMore without a batchSize). */
        @Override
        public synchronized List<Document> takeDocuments(int numberToReturn) {
            int end = numberToReturn <= 0 ? documents.size() : Math.min(documents.size(), next + numberToReturn);
            List<Document> batch = new ArrayList<>(documents.subList(next, end));
            next = end;
            return batch;
        }
    }
}
