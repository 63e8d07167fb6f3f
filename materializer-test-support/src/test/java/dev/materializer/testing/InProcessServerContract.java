package dev.materializer.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the in-process test server was extended with, asserted as MongoDB behaves: each test runs
 * on the in-process server and on a real replica set, so the double cannot drift from the original
 * unnoticed (docs/compatibility.md lists what it does and does not do).
 */
abstract class InProcessServerContract {

    private static final Duration EVENT_WAIT = Duration.ofSeconds(10);

    // --- queries that name _id and other fields

    @Test
    void aQueryNamingIdAndOtherFieldsMatchesTheWholeQuery(TestMongo mongo) {
        MongoCollection<Document> rows = mongo.database().getCollection("rows");
        rows.insertOne(new Document("_id", "r1").append("_part", "p1").append("v", 1));

        assertThat(rows.countDocuments(new Document("_id", "r1").append("_part", "p1"))).isEqualTo(1);
        assertThat(rows.countDocuments(new Document("_id", "r1").append("_part", "p2"))).isZero();
        assertThat(rows.countDocuments(new Document("_id", new Document("$in", List.of("r1", "r2"))).append("v", 1)))
            .isEqualTo(1);

        rows.updateOne(new Document("_id", "r1").append("_part", "p1"), Updates.set("v", 2));
        assertThat(rows.find(Filters.eq("_id", "r1")).first()).containsEntry("v", 2);
        // An upsert whose query misses inserts, and so collides with the _id already there.
        assertThatThrownBy(() -> rows.updateOne(new Document("_id", "r1").append("_part", "p2"), Updates.set("v", 3),
                new UpdateOptions().upsert(true)))
            .isInstanceOfSatisfying(MongoWriteException.class, ex -> assertThat(ex.getCode()).isEqualTo(11000));
        assertThat(rows.deleteOne(new Document("_id", "r1").append("_part", "p2")).getDeletedCount()).isZero();
        assertThat(rows.deleteOne(new Document("_id", "r1").append("_part", "p1")).getDeletedCount()).isEqualTo(1);
    }

    // --- update events

    @Test
    void anUpdateEventCarriesItsDescriptionAndTheDocumentKey(TestMongo mongo) {
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        orders.insertOne(new Document("_id", "o1").append("total", 1).append("note", "x")
            .append("address", new Document("city", "Oslo").append("zip", "0150"))
            .append("items", List.of("a", "b")));
        try (MongoCursor<Document> cursor = rawWatch(orders, List.of())) {
            orders.updateOne(Filters.eq("_id", "o1"), Updates.combine(Updates.set("total", 2), Updates.unset("note")));
            orders.updateOne(Filters.eq("_id", "o1"), Updates.set("address.city", "Bergen"));
            orders.updateOne(Filters.eq("_id", "o1"), Updates.push("items", "c"));
            orders.updateOne(Filters.eq("_id", "o1"), Updates.popLast("items"));
            orders.updateOne(Filters.eq("_id", "o1"), Updates.set("address", new Document("city", "Bodø")));

            List<Document> events = read(cursor, 5);

            assertThat(events).extracting(event -> event.getString("operationType")).containsOnly("update");
            Document first = events.get(0);
            assertThat(first.get("documentKey", Document.class)).isEqualTo(new Document("_id", "o1"));
            assertThat(first.get("ns", Document.class)).isEqualTo(
                    new Document("db", mongo.database().getName()).append("coll", "orders"));
            assertThat(description(first, "updatedFields")).isEqualTo(new Document("total", 2));
            assertThat(first.get("updateDescription", Document.class).getList("removedFields", String.class))
                .containsExactly("note");
            assertThat(first.get("updateDescription", Document.class).getList("truncatedArrays", Document.class))
                .isEmpty();
            assertThat(first).doesNotContainKey("fullDocument");
            assertThat(description(events.get(1), "updatedFields")).isEqualTo(new Document("address.city", "Bergen"));
            assertThat(description(events.get(2), "updatedFields")).isEqualTo(new Document("items.2", "c"));
            assertThat(events.get(3).get("updateDescription", Document.class).getList("truncatedArrays", Document.class))
                .containsExactly(new Document("field", "items").append("newSize", 2));
            assertThat(description(events.get(4), "updatedFields"))
                .isEqualTo(new Document("address", new Document("city", "Bodø")));
        }
    }

    @Test
    void aReplacementIsAReplaceEventWithTheNewDocument(TestMongo mongo) {
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        orders.insertOne(new Document("_id", "o1").append("total", 1));
        try (MongoCursor<Document> cursor = rawWatch(orders, List.of())) {
            orders.replaceOne(Filters.eq("_id", "o1"), new Document("total", 5), new ReplaceOptions());

            Document event = read(cursor, 1).get(0);

            assertThat(event.getString("operationType")).isEqualTo("replace");
            assertThat(event.get("fullDocument", Document.class)).isEqualTo(new Document("_id", "o1").append("total", 5));
            assertThat(event.get("documentKey", Document.class)).isEqualTo(new Document("_id", "o1"));
            assertThat(event).doesNotContainKey("updateDescription");
        }
    }

    @Test
    void aFindAndModifyWritesItsEvents(TestMongo mongo) {
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        orders.insertOne(new Document("_id", "o1").append("total", 1));
        try (MongoCursor<Document> cursor = rawWatch(orders, List.of())) {
            orders.findOneAndUpdate(Filters.eq("_id", "o1"), Updates.inc("total", 1));
            orders.findOneAndDelete(Filters.eq("_id", "o1"));

            List<Document> events = read(cursor, 2);

            assertThat(events).extracting(event -> event.getString("operationType")).containsExactly("update", "delete");
            assertThat(description(events.get(0), "updatedFields")).isEqualTo(new Document("total", 2));
            assertThat(events.get(1).get("documentKey", Document.class)).isEqualTo(new Document("_id", "o1"));
        }
    }

    @Test
    void aDropIsFollowedByAnInvalidateThatEndsTheStream(TestMongo mongo) {
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        orders.insertOne(new Document("_id", "o1"));
        try (MongoCursor<Document> cursor = rawWatch(orders, List.of())) {
            orders.drop();

            List<Document> events = read(cursor, 2);

            assertThat(events).extracting(event -> event.getString("operationType")).containsExactly("drop", "invalidate");
        }
    }

    // --- pre- and post-images

    @Test
    void preImagesAreKeptForACollectionThatEnablesThem(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        db.createCollection("kept", new CreateCollectionOptions()
            .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        db.getCollection("plain").insertOne(new Document("_id", "seed"));
        db.runCommand(new Document("collMod", "plain").append("changeStreamPreAndPostImages",
                new Document("enabled", false)));
        assertThat(preImagesOption(db, "kept")).isTrue();
        assertThat(preImagesOption(db, "plain")).isFalse();

        MongoCollection<Document> kept = db.getCollection("kept");
        kept.insertOne(new Document("_id", "k1").append("state", "new"));
        try (MongoCursor<Document> cursor = rawWatch(kept,
                List.of(), "whenAvailable")) {
            kept.updateOne(Filters.eq("_id", "k1"), Updates.set("state", "paid"));
            kept.deleteOne(Filters.eq("_id", "k1"));

            List<Document> events = read(cursor, 2);

            assertThat(events.get(0).get("fullDocumentBeforeChange", Document.class))
                .isEqualTo(new Document("_id", "k1").append("state", "new"));
            assertThat(events.get(1).getString("operationType")).isEqualTo("delete");
            assertThat(events.get(1).get("fullDocumentBeforeChange", Document.class))
                .isEqualTo(new Document("_id", "k1").append("state", "paid"));
        }
    }

    @Test
    void aCollectionWithoutPreImagesGivesNoneWhenAvailableAndFailsWhenRequired(TestMongo mongo) {
        MongoCollection<Document> plain = mongo.database().getCollection("plain");
        plain.insertOne(new Document("_id", "p1").append("state", "new"));
        try (MongoCursor<Document> cursor = rawWatch(plain, List.of(), "whenAvailable")) {
            plain.deleteOne(Filters.eq("_id", "p1"));

            Document event = read(cursor, 1).get(0);

            assertThat(event).containsKey("fullDocumentBeforeChange");
            assertThat(event.get("fullDocumentBeforeChange")).isNull();
        }
        plain.insertOne(new Document("_id", "p2"));
        try (MongoCursor<Document> cursor = rawWatch(plain, List.of(), "required")) {
            plain.deleteOne(Filters.eq("_id", "p2"));

            assertThatThrownBy(() -> read(cursor, 1)).isInstanceOf(MongoCommandException.class);
        }
    }

    @Test
    void collModTurnsPreImagesOnForLaterWrites(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        MongoCollection<Document> later = db.getCollection("later");
        later.insertOne(new Document("_id", "l1").append("v", 1));
        db.runCommand(new Document("collMod", "later").append("changeStreamPreAndPostImages",
                new Document("enabled", true)));
        assertThat(preImagesOption(db, "later")).isTrue();
        try (MongoCursor<Document> cursor = rawWatch(later, List.of(), "required")) {
            later.updateOne(Filters.eq("_id", "l1"), Updates.set("v", 2));

            Document event = read(cursor, 1).get(0);

            assertThat(event.get("fullDocumentBeforeChange", Document.class)).containsEntry("v", 1);
        }
    }

    // --- aggregation forms

    @Test
    void setAndUnsetStagesAndTheCountAccumulatorWork(TestMongo mongo) {
        MongoCollection<Document> orders = mongo.database().getCollection("orders");
        orders.insertMany(List.of(new Document("_id", 1).append("t", "a").append("x", 1),
                new Document("_id", 2).append("t", "a").append("x", 2), new Document("_id", 3).append("t", "b")));

        List<Document> set = orders.aggregate(List.of(Document.parse("{$set: {y: {$add: [1, 1]}}}"),
                Document.parse("{$unset: 'x'}"), Document.parse("{$sort: {_id: 1}}"))).into(new ArrayList<>());
        List<Document> counted = orders.aggregate(List.of(Document.parse("{$group: {_id: '$t', n: {$count: {}}}}"),
                Document.parse("{$sort: {_id: 1}}"))).into(new ArrayList<>());

        assertThat(set).containsExactly(new Document("_id", 1).append("t", "a").append("y", 2),
                new Document("_id", 2).append("t", "a").append("y", 2),
                new Document("_id", 3).append("t", "b").append("y", 2));
        assertThat(counted).containsExactly(new Document("_id", "a").append("n", 2), new Document("_id", "b").append("n", 1));
    }

    @Test
    void aLookupWithFieldsAndAPipelineMatchesAsMongoDbDoes(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        db.getCollection("lines").insertMany(List.of(new Document("_id", "l1").append("order", "o1").append("keep", true),
                new Document("_id", "l2").append("order", "o1").append("keep", false),
                new Document("_id", "l3").append("order", "o2").append("keep", true),
                new Document("_id", "l4").append("keep", true)));
        db.getCollection("orders").insertMany(List.of(new Document("_id", "o1"), new Document("_id", "o2"),
                new Document("_id", "none").append("unset", true)));

        List<Document> joined = db.getCollection("orders").aggregate(List.of(
                Document.parse("{$lookup: {from: 'lines', localField: 'ref', foreignField: 'order',"
                        + " let: {id: '$_id'}, pipeline: [{$match: {keep: true}}, {$sort: {_id: 1}},"
                        + " {$project: {_id: 1}}], as: 'lines'}}"),
                Document.parse("{$sort: {_id: 1}}"))).into(new ArrayList<>());
        List<Document> byId = db.getCollection("orders").aggregate(List.of(
                Document.parse("{$lookup: {from: 'lines', localField: '_id', foreignField: 'order',"
                        + " pipeline: [{$match: {keep: true}}, {$project: {_id: 1}}], as: 'lines'}}"),
                Document.parse("{$sort: {_id: 1}}"))).into(new ArrayList<>());

        // No order has 'ref': each matches the lines without 'order' (missing matches missing).
        assertThat(joined).extracting(order -> order.getList("lines", Document.class))
            .containsOnly(List.of(new Document("_id", "l4")));
        assertThat(byId).extracting(order -> order.getList("lines", Document.class))
            .containsExactly(List.of(), List.of(new Document("_id", "l1")), List.of(new Document("_id", "l3")));
    }

    @Test
    void aLetVariableOfAnAbsentFieldIsMissing(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        db.getCollection("a").insertOne(new Document("_id", 1));
        db.getCollection("b").insertOne(new Document("_id", 2));

        List<Document> rows = db.getCollection("a").aggregate(List.of(Document.parse(
                "{$lookup: {from: 'b', let: {v: '$absent'}, pipeline: [{$project: {_id: 1,"
                        + " seen: {$ifNull: ['$$v', 'none']}}}], as: 'b'}}"))).into(new ArrayList<>());

        assertThat(rows.get(0).getList("b", Document.class)).containsExactly(
                new Document("_id", 2).append("seen", "none"));
    }

    // --- helpers

    private static Document description(Document event, String part) {
        return event.get("updateDescription", Document.class).get(part, Document.class);
    }

    private static boolean preImagesOption(MongoDatabase db, String collection) {
        Document info = db.listCollections().filter(Filters.eq("name", collection)).first();
        Document options = info == null ? null : info.get("options", Document.class);
        Document preImages = options == null ? null : options.get("changeStreamPreAndPostImages", Document.class);
        return preImages != null && Boolean.TRUE.equals(preImages.getBoolean("enabled"));
    }

    private static MongoCursor<Document> rawWatch(MongoCollection<Document> collection,
            List<Document> pipeline) {
        return collection.watch(pipeline, BsonDocument.class).withDocumentClass(Document.class).cursor();
    }

    private static MongoCursor<Document> rawWatch(MongoCollection<Document> collection,
            List<Document> pipeline, String beforeChange) {
        return collection.watch(pipeline, BsonDocument.class)
            .fullDocumentBeforeChange(FullDocumentBeforeChange.fromString(beforeChange))
            .withDocumentClass(Document.class)
            .cursor();
    }

    private static List<Document> read(MongoCursor<Document> cursor, int wanted) {
        List<Document> events = new ArrayList<>();
        long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
        while (events.size() < wanted && System.nanoTime() < deadline) {
            Document event = cursor.tryNext();
            if (event != null) {
                events.add(event);
            }
        }
        assertThat(events).as("events read within %s", EVENT_WAIT).hasSize(wanted);
        return events;
    }
}
