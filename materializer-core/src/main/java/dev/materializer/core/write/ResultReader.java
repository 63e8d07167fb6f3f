package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.guard.ScopeViolationException;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Runs a view's guarded pipeline and hands its result over row by row, sorted by {@code _id} (the
 * server sorts, spilling to disk when it must), each row with the hash of its content; the driver
 * fetches {@value TargetRows#GROUP_SIZE} rows at a time, so a pass holds one batch, never the whole
 * result. A refusal of the guard, a failure of the pipeline, a row without {@code _id} and a result
 * over {@code maxRows} are errors of the view.
 *
 * <p>Immutable and thread-safe; each {@link Cursor} belongs to one pass.
 */
final class ResultReader {

    private final MongoDatabase database;

    private final ScopeGuard guard;

    private final RowHasher hasher;

    private final TargetRows rows;

    private static final BsonDocument BY_ID = new BsonDocument("$sort", new BsonDocument("_id", new BsonInt32(1)));

    private final int maxRows;

    private final long maxTimeMillis;

    ResultReader(MongoDatabase database, WriteSettings options, ScopeGuard guard, RowHasher hasher,
            TargetRows rows) {
        this.database = database;
        this.guard = guard;
        this.hasher = hasher;
        this.rows = rows;
        this.maxRows = options.maxRows();
        this.maxTimeMillis = options.maxTime().toMillis();
    }

    /**
     * Starts the pipeline of a view.
     * @param generations per target of a view of its partition, that view's current generation: the
     *     only target rows it may read
     */
    Cursor open(ViewDefinition view, Map<String, @Nullable Generation> generations) throws ViewRunException {
        return open(view, view.pipeline(), generations);
    }

    /**
     * Starts a pipeline of a view in place of its own: the pipeline restricted to some keys.
     * @param stages the stages to run, before the scope guard
     * @param generations as for {@link #open(ViewDefinition, Map)}
     */
    Cursor open(ViewDefinition view, List<BsonDocument> stages, Map<String, @Nullable Generation> generations)
            throws ViewRunException {
        List<BsonDocument> pipeline = guarded(view, stages, generations);
        MongoCursor<BsonDocument> cursor;
        try {
            cursor = database.getCollection(view.primarySource(), BsonDocument.class)
                .aggregate(pipeline)
                .allowDiskUse(true)
                .maxTime(maxTimeMillis, TimeUnit.MILLISECONDS)
                .batchSize(TargetRows.GROUP_SIZE)
                .cursor();
        }
        catch (MongoException ex) {
            throw pipelineFailure(ex);
        }
        return new Cursor(view, cursor);
    }

    /**
     * The pipeline a pass of the view runs: the stages under the scope guard, sorted by {@code _id}
     * as the stored rows are read, and limited to one row past {@code maxRows}.
     * @throws ViewRunException when the guard refuses the stages
     */
    List<BsonDocument> guarded(ViewDefinition view, List<BsonDocument> stages,
            Map<String, @Nullable Generation> generations) throws ViewRunException {
        List<BsonDocument> pipeline;
        try {
            pipeline = new ArrayList<>(guard.scope(stages, view.partition(), view.collections(),
                    view.primarySource(), generations));
        }
        catch (ScopeViolationException ex) {
            throw new ViewRunException(ex.getMessage());
        }
        // Sorted as the stored rows are read, so the two merge without holding either
        pipeline.add(BY_ID.clone());
        // One row more than allowed tells a result at the limit from one over it
        pipeline.add(new BsonDocument("$limit", new BsonInt32(maxRows + 1)));
        return pipeline;
    }

    /**
     * The rows of a result read already (a batched pass reads the results of many views in one
     * aggregate), checked and hashed as a cursor's are.
     * @param rows the documents, in {@code _id} order
     */
    Cursor rowsOf(ViewDefinition view, List<BsonDocument> rows) {
        return new Cursor(view, rows.iterator());
    }

    /** Runs an aggregate on a collection with the limits of a pass, as {@link #open} does. */
    List<BsonDocument> aggregate(String collection, List<BsonDocument> pipeline) throws ViewRunException {
        try {
            return database.getCollection(collection, BsonDocument.class)
                .aggregate(pipeline)
                .allowDiskUse(true)
                .maxTime(maxTimeMillis, TimeUnit.MILLISECONDS)
                .into(new ArrayList<>());
        }
        catch (MongoException ex) {
            throw pipelineFailure(ex);
        }
    }

    /** The error of a view whose result has more rows than it may: whole, or grown by a key-scoped pass. */
    static ViewRunException overMaxRows(ViewDefinition view, int maxRows) {
        return new ViewRunException("the result of view " + ViewKey.idText(view.id()) + " has more than " + maxRows
                + " rows (maxRows)");
    }

    private static ViewRunException pipelineFailure(MongoException failure) {
        if (MongoFailures.isInfrastructure(failure)) {
            throw failure;
        }
        return new ViewRunException("the pipeline failed: " + MongoFailures.messageOf(failure));
    }

    /** The rows of one run of a pipeline. Not thread-safe. */
    final class Cursor implements AutoCloseable, RowMerge.ResultSide {

        private final ViewDefinition view;

        private final Iterator<BsonDocument> cursor;

        private long count;

        private Cursor(ViewDefinition view, Iterator<BsonDocument> cursor) {
            this.view = view;
            this.cursor = cursor;
        }

        /** The next row, in {@code _id} order, or null at the end of the result. */
        @Override
        @Nullable
        public ResultRow next() throws ViewRunException {
            return hasNext() ? rowOf(cursor.next()) : null;
        }

        private boolean hasNext() throws ViewRunException {
            try {
                return cursor.hasNext();
            }
            catch (MongoException ex) {
                throw pipelineFailure(ex);
            }
        }

        private ResultRow rowOf(BsonDocument row) throws ViewRunException {
            if (++count > maxRows) {
                throw overMaxRows(view, maxRows);
            }
            BsonValue id = row.get("_id");
            if (id == null || id.isNull()) {
                throw new ViewRunException("each row of the result needs an _id");
            }
            BsonDocument content = rows.contentOf(row);
            return new ResultRow(id, content, hasher.hash(content));
        }

        @Override
        public void close() {
            if (!(cursor instanceof MongoCursor<BsonDocument> open)) {
                return;
            }
            try {
                open.close();
            }
            catch (MongoException ex) {
                // The server ends an abandoned cursor on its own.
            }
        }
    }
}
