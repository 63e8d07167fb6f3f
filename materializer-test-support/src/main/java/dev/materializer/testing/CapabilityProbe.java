package dev.materializer.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.OperationType;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * Finds out what a server offers by trying each thing on a scratch database, which is the only
 * honest test: the test server accepts some options it then ignores.
 */
final class CapabilityProbe {

    private static final Duration EVENT_WAIT = Duration.ofSeconds(5);

    private CapabilityProbe() {
    }

    static Set<Capability> probe(MongoClient client) {
        MongoDatabase db = client.getDatabase("materializer_probe_" + UUID.randomUUID().toString().substring(0, 8));
        Set<Capability> found = EnumSet.noneOf(Capability.class);
        try {
            check(found, Capability.TRANSACTIONS, scratch -> transactions(client, scratch), db);
            check(found, Capability.PRE_IMAGES, CapabilityProbe::preImages, db);
            check(found, Capability.PIPELINE_UPDATES, CapabilityProbe::pipelineUpdates, db);
            check(found, Capability.UNION_WITH, CapabilityProbe::unionWith, db);
            check(found, Capability.LOOKUP_FIELDS_WITH_PIPELINE, CapabilityProbe::lookupFieldsWithPipeline, db);
            check(found, Capability.GRAPH_LOOKUP_RESTRICT, CapabilityProbe::graphLookupRestrict, db);
            check(found, Capability.UPDATE_DESCRIPTIONS, CapabilityProbe::updateDescriptions, db);
            check(found, Capability.DATABASE_WATCH, CapabilityProbe::databaseWatch, db);
            check(found, Capability.SPLIT_LARGE_EVENTS, CapabilityProbe::splitLargeEvents, db);
        }
        finally {
            try {
                db.drop();
            }
            catch (RuntimeException ignored) {
                // A probe database left behind is harmless.
            }
        }
        return found;
    }

    private static void check(Set<Capability> found, Capability capability, Predicate<MongoDatabase> probe,
            MongoDatabase db) {
        try {
            if (probe.test(db)) {
                found.add(capability);
            }
        }
        catch (RuntimeException ex) {
            // The server refused: it does not offer the capability.
        }
    }

    private static boolean transactions(MongoClient client, MongoDatabase db) {
        MongoCollection<Document> collection = db.getCollection("transactions");
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            collection.insertOne(session, new Document("_id", 1));
            session.commitTransaction();
        }
        return collection.countDocuments() == 1;
    }

    private static boolean preImages(MongoDatabase db) {
        db.createCollection("preImages", new CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        Document info = db.listCollections().filter(Filters.eq("name", "preImages")).first();
        Document options = info == null ? null : info.get("options", Document.class);
        Document preImages = options == null ? null : options.get("changeStreamPreAndPostImages", Document.class);
        return preImages != null && Boolean.TRUE.equals(preImages.getBoolean("enabled"));
    }

    private static boolean pipelineUpdates(MongoDatabase db) {
        MongoCollection<Document> collection = db.getCollection("pipelineUpdates");
        collection.insertOne(new Document("_id", 1));
        collection.updateOne(Filters.eq("_id", 1), List.of(new Document("$set", new Document("x", 1))));
        Document updated = collection.find(Filters.eq("_id", 1)).first();
        return updated != null && Integer.valueOf(1).equals(updated.get("x"));
    }

    private static boolean unionWith(MongoDatabase db) {
        db.getCollection("unionA").insertOne(new Document("_id", 1));
        db.getCollection("unionB").insertOne(new Document("_id", 2));
        List<Document> rows = db.getCollection("unionA")
            .aggregate(List.of(new Document("$unionWith", "unionB")))
            .into(new ArrayList<>());
        return rows.size() == 2;
    }

    private static boolean lookupFieldsWithPipeline(MongoDatabase db) {
        db.getCollection("lookupFrom").insertOne(new Document("_id", 1).append("k", "x"));
        db.getCollection("lookupInto").insertMany(List.of(new Document("_id", "kept").append("k", "x").append("keep", true),
                new Document("_id", "dropped").append("k", "x").append("keep", false)));
        List<Document> rows = db.getCollection("lookupFrom")
            .aggregate(List.of(Document.parse("{$lookup: {from: 'lookupInto', localField: 'k', foreignField: 'k',"
                    + " pipeline: [{$match: {keep: true}}], as: 'joined'}}")))
            .into(new ArrayList<>());
        return rows.size() == 1 && rows.get(0).getList("joined", Document.class).size() == 1;
    }

    private static boolean graphLookupRestrict(MongoDatabase db) {
        db.getCollection("graphFrom").insertOne(new Document("_id", 1).append("k", "x"));
        db.getCollection("graphInto").insertMany(List.of(new Document("_id", "kept").append("k", "x").append("keep", true),
                new Document("_id", "dropped").append("k", "x").append("keep", false)));
        List<Document> rows = db.getCollection("graphFrom")
            .aggregate(List.of(Document.parse("{$graphLookup: {from: 'graphInto', startWith: '$k', connectFromField: 'k',"
                    + " connectToField: 'k', as: 'reached', restrictSearchWithMatch: {keep: true}}}")))
            .into(new ArrayList<>());
        // A server that ignores the option reaches both.
        return rows.size() == 1 && rows.get(0).getList("reached", Document.class).size() == 1;
    }

    private static boolean updateDescriptions(MongoDatabase db) {
        MongoCollection<Document> collection = db.getCollection("updateEvents");
        collection.insertOne(new Document("_id", "seed"));
        ChangeStreamIterable<Document> stream = collection.watch();
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = stream.cursor()) {
            collection.insertOne(new Document("_id", "probe"));
            collection.updateOne(Filters.eq("_id", "probe"), Updates.set("a", 1));
            ChangeStreamDocument<Document> event = firstEvent(cursor, OperationType.UPDATE);
            return event != null
                    && event.getUpdateDescription() != null
                    && event.getUpdateDescription().getUpdatedFields() != null
                    && event.getUpdateDescription().getUpdatedFields().containsKey("a")
                    && event.getDocumentKey() != null
                    && "probe".equals(event.getDocumentKey().get("_id").asString().getValue());
        }
    }

    private static boolean databaseWatch(MongoDatabase db) {
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = db.watch().cursor()) {
            db.getCollection("databaseWatch").insertOne(new Document("_id", "probe"));
            return firstEvent(cursor, OperationType.INSERT) != null;
        }
    }

    private static boolean splitLargeEvents(MongoDatabase db) {
        // A server without the stage refuses the aggregate that opens the stream.
        List<Document> pipeline = List.of(new Document("$changeStreamSplitLargeEvent", new Document()));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = db.getCollection("splitEvents")
            .watch(pipeline)
            .cursor()) {
            return cursor != null;
        }
    }

    /** The first event of that type within the wait, or null. */
    private static @Nullable ChangeStreamDocument<Document> firstEvent(
            MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor, OperationType type) {
        long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            ChangeStreamDocument<Document> event = cursor.tryNext();
            if (event != null && event.getOperationType() == type) {
                return event;
            }
        }
        return null;
    }
}
