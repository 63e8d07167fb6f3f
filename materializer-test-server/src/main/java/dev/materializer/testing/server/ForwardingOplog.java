package dev.materializer.testing.server;

import java.util.List;

import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;

/** An oplog that passes everything to another one; implementations override what they add. */
interface ForwardingOplog extends Oplog {

    /** The oplog everything goes to. */
    Oplog oplog();

    @Override
    default void handleInsert(String namespace, List<Document> documents) {
        oplog().handleInsert(namespace, documents);
    }

    @Override
    default void handleUpdate(String namespace, Document selector, Document query, List<Object> modifiedIds) {
        oplog().handleUpdate(namespace, selector, query, modifiedIds);
    }

    @Override
    default void handleDelete(String namespace, Document query, List<Object> deletedIds) {
        oplog().handleDelete(namespace, query, deletedIds);
    }

    @Override
    default void handleDropCollection(String namespace) {
        oplog().handleDropCollection(namespace);
    }

    @Override
    default Cursor createCursor(Document changeStreamDocument, String namespace, Aggregation aggregation) {
        return oplog().createCursor(changeStreamDocument, namespace, aggregation);
    }
}
