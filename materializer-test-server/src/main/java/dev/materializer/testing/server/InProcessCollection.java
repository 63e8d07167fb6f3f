package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.List;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.ArrayFilters;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import org.jspecify.annotations.Nullable;

/**
 * A collection of the in-process backend: its queries use the {@code _id} index as MongoDB's do
 * ({@link IdIndexedCollection}) and its non-unique indexes ({@link SecondaryIndexedCollection}), and
 * each write tells the {@link ChangeLog} the documents before and after it, so an event can carry an update description, the document key and the images.
 *
 * <p>Open for a subclass that observes its queries (the benchmarks' counting backend, through
 * {@link InProcessBackend#openCollection}); a subclass that overrides a write must call this one's.
 *
 * <p>Threads: every method that reads or writes is synchronized on the collection (as in the plain
 * backend); the recording of one write's documents happens inside that lock.
 */
public class InProcessCollection extends SecondaryIndexedCollection {

    /** The documents before and after a write, while one runs; null otherwise. */
    private @Nullable List<Change> recording;

    /** A collection of that database, as the plain backend makes one. */
    public InProcessCollection(MongoDatabase database, String collectionName, CollectionOptions options,
            CursorRegistry cursorRegistry) {
        super(database, collectionName, options, cursorRegistry);
    }

    @Override
    public synchronized Document updateDocuments(Document selector, Document update, ArrayFilters arrayFilters,
            boolean isMulti, boolean isUpsert, Oplog oplog) {
        List<Change> changes = new ArrayList<>();
        recording = changes;
        try {
            return super.updateDocuments(selector, update, arrayFilters, isMulti, isUpsert,
                    new RecordedUpdates(oplog, update, changes));
        }
        finally {
            recording = null;
        }
    }

    @Override
    public synchronized int deleteDocuments(Document selector, int limit, Oplog oplog) {
        List<Change> changes = new ArrayList<>();
        recording = changes;
        try {
            return super.deleteDocuments(selector, limit, new RecordedDeletes(oplog, changes));
        }
        finally {
            recording = null;
        }
    }

    /**
     * A findAndModify that writes its change events (the plain backend writes none): the update,
     * upsert or delete of the one document it changed.
     */
    synchronized Document findAndModify(Document query, Oplog oplog) {
        List<Change> changes = new ArrayList<>();
        recording = changes;
        Document result;
        try {
            result = super.findAndModify(query);
        }
        finally {
            recording = null;
        }
        if (oplog instanceof ChangeLog log) {
            Document update = query.get("update") instanceof Document document ? document : new Document();
            for (Change change : changes) {
                if (change.before() == null) {
                    log.handleInsert(getFullName(), List.of(change.after()));
                }
                else if (change.after() == null) {
                    log.handleDeletes(getFullName(), List.of(change));
                }
                else {
                    log.handleUpdates(getFullName(), update, List.of(change));
                }
            }
        }
        return result;
    }

    @Override
    public synchronized void addDocument(Document document) {
        super.addDocument(document);
        List<Change> changes = recording;
        if (changes != null) {
            // Only an upsert of findAndModify adds while recording; updateDocuments reports its upsert itself.
            changes.add(new Change(null, document.cloneDeeply()));
        }
    }

    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
        super.handleUpdate(position, oldDocument, newDocument);
        List<Change> changes = recording;
        if (changes != null) {
            changes.add(new Change(oldDocument.cloneDeeply(), newDocument.cloneDeeply()));
        }
    }

    @Override
    public synchronized void removeDocument(Document document) {
        List<Change> changes = recording;
        if (changes != null) {
            changes.add(new Change(document.cloneDeeply(), null));
        }
        super.removeDocument(document);
    }

    /**
     * One document a write changed.
     *
     * @param before the document before the write; null when it was inserted
     * @param after the document after it; null when it was deleted
     */
    record Change(@Nullable Document before, @Nullable Document after) {
    }

    /** Passes the documents an update changed to the change log; other oplogs hear it as before. */
    private record RecordedUpdates(Oplog oplog, Document update, List<Change> changes) implements ForwardingOplog {

        @Override
        public void handleUpdate(String namespace, Document selector, Document query, List<Object> modifiedIds) {
            if (oplog instanceof ChangeLog log) {
                log.handleUpdates(namespace, update, List.copyOf(changes));
            }
            else {
                oplog.handleUpdate(namespace, selector, query, modifiedIds);
            }
        }
    }

    /** Passes the documents a delete removed to the change log; other oplogs hear it as before. */
    private record RecordedDeletes(Oplog oplog, List<Change> changes) implements ForwardingOplog {

        @Override
        public void handleDelete(String namespace, Document query, List<Object> deletedIds) {
            if (oplog instanceof ChangeLog log) {
                log.handleDeletes(namespace, List.copyOf(changes));
            }
            else {
                oplog.handleDelete(namespace, query, deletedIds);
            }
        }
    }
}
