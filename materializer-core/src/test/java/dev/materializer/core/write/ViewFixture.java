package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.engine.EngineSettings;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.testing.Capability;
import dev.materializer.testing.TestMongo;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Views, sources and readers for the writer tests: a view document in the views collection, its
 * definition, a runner, and what a reader using {@link ViewFilter} sees.
 */
final class ViewFixture {

    static final String SOURCE = "orders";

    static final String TARGET = "revenue";

    /** Totals the amounts of a partition's orders per shop: one row per shop. */
    static final String[] REVENUE_BY_SHOP = { "{$group: {_id: '$shop', total: {$sum: '$amount'}}}" };

    /** One row per order: its amount, with the order's {@code _id}. */
    static final String[] AMOUNTS = { "{$project: {amount: 1}}" };

    final TestMongo mongo;

    final MongoDatabase database;

    final MaterializerOptions options;

    /** The writers' settings of {@link #options}. */
    final WriteSettings settings;

    ViewFixture(TestMongo mongo) {
        this(mongo, MaterializerOptions.builder().instanceId("test-instance").build());
    }

    ViewFixture(TestMongo mongo, MaterializerOptions options) {
        this.mongo = mongo;
        this.database = mongo.database();
        this.options = options;
        this.settings = EngineSettings.write(options);
    }

    /** A fixture whose superseded generations stay readable for a grace time. */
    static ViewFixture withGrace(TestMongo mongo, Duration grace) {
        return new ViewFixture(mongo, MaterializerOptions.builder().instanceId("test").generationGrace(grace).build());
    }

    ViewFixture with(MaterializerOptions changed) {
        return new ViewFixture(mongo, changed);
    }

    /** A runner that writes in transactions where the server offers them. */
    ViewRunner runner() {
        return new ViewRunner(database, mongo.capabilities().contains(Capability.TRANSACTIONS) ? mongo.client() : null,
                settings, new ScopeGuard(options.partitionField()), new RowHasher());
    }

    /** A runner as {@link #runner()} that does something between its status read and its holder check. */
    ViewRunner runner(Runnable afterStartingStatus) {
        return new ViewRunner(database, mongo.capabilities().contains(Capability.TRANSACTIONS) ? mongo.client() : null,
                settings, new ScopeGuard(options.partitionField()), new RowHasher(), afterStartingStatus);
    }

    /** A runner that never uses transactions: it writes in groups under a lease. */
    ViewRunner groupsRunner() {
        return new ViewRunner(database, null, settings, new ScopeGuard(options.partitionField()), new RowHasher());
    }

    /** A runner that writes small diffs in transactions; only on a server that offers them. */
    ViewRunner transactionalRunner() {
        return new ViewRunner(database, mongo.client(), settings, new ScopeGuard(options.partitionField()),
                new RowHasher());
    }

    /** The writer alone, to drive a pass from a chosen starting status; in transactions when given a client. */
    VersionedWriter writer(boolean transactions) {
        return writer(transactions, VersionedWriter.Pauses.NONE);
    }

    /** The writer alone, stopping where the test holds it. */
    VersionedWriter writer(boolean transactions, VersionedWriter.Pauses pauses) {
        RowHasher hasher = new RowHasher();
        TargetRows rows = rows();
        return new VersionedWriter(database, transactions ? mongo.client() : null, settings,
                new ResultReader(database, settings, new ScopeGuard(options.partitionField()), hasher, rows), rows, hasher,
                leases(), flip(), pauses);
    }

    /** The server's time now, as a pass reads it with its status (read with a view document: have one). */
    /** The server's time now, carried forward as a pass carries the time of its status read. */
    ServerTime serverTime() {
        return ServerTime.readNow(serverNow());
    }

    Instant serverNow() {
        BsonDocument row = views().aggregate(List.of(BsonDocument.parse("{$limit: 1}"),
                BsonDocument.parse("{$project: {_id: 0, now: '$$NOW'}}"))).first();
        return Instant.ofEpochMilli(row.getDateTime("now").getValue());
    }

    TargetRows rows() {
        return new TargetRows(options.partitionField(), options.targetId(), new RowHasher());
    }

    /** What a pass passes its writer: the generations of the partition's targets. */
    Map<String, Generation> generations(String partition) {
        return new StatusStore(database, settings).currentGenerations(partition);
    }

    ViewLeases leases() {
        return new ViewLeases(new ViewDocuments(database, settings), options.passLease(), flip());
    }

    GenerationFlip flip() {
        return new GenerationFlip(new ViewDocuments(database, settings), new ReadableGenerations(options.generationGrace()));
    }

    /** Two orders of acme (north 10, south 7), and acme's revenue by shop over them stored. */
    ViewDefinition revenueOfTwoShops() {
        order(1, "acme", "north", 10);
        order(2, "acme", "south", 7);
        return view("revenue", "acme", REVENUE_BY_SHOP);
    }

    /** Stores a view document and returns its definition. */
    ViewDefinition view(String id, String partition, String... stages) {
        return viewInto(TARGET, id, partition, stages);
    }

    ViewDefinition viewInto(String target, String id, String partition, String... stages) {
        return viewOver(List.of(SOURCE), target, id, partition, stages);
    }

    /** Stores a view document reading several collections: the pipeline runs on the first, joins the others. */
    ViewDefinition viewOver(List<String> collections, String target, String id, String partition, String... stages) {
        List<BsonDocument> pipeline = Arrays.stream(stages).map(BsonDocument::parse).toList();
        views().insertOne(new BsonDocument("_id", new BsonString(id))
            .append(options.partitionField(), new BsonString(partition))
            .append("collections", new BsonArray(collections.stream().<BsonValue>map(BsonString::new).toList()))
            .append("pipeline", new BsonArray(pipeline))
            .append("targetCollection", new BsonString(target)));
        return new ViewDefinition(new BsonString(id), partition, collections, pipeline, target, Map.of(),
                "fingerprint-" + id);
    }

    MongoCollection<BsonDocument> views() {
        return database.getCollection(options.viewsCollection(), BsonDocument.class);
    }

    MongoCollection<BsonDocument> source() {
        return database.getCollection(SOURCE, BsonDocument.class);
    }

    MongoCollection<BsonDocument> target() {
        return database.getCollection(TARGET, BsonDocument.class);
    }

    void order(Object id, String partition, String shop, int amount) {
        source().insertOne(new BsonDocument("_id", bson(id)).append(options.partitionField(), new BsonString(partition))
            .append("shop", new BsonString(shop))
            .append("amount", new BsonInt32(amount)));
    }

    /** Many orders in one insert: order {@code i} has amount {@code amount}. */
    void orders(String partition, int count, int amount) {
        List<BsonDocument> orders = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            orders.add(new BsonDocument("_id", new BsonInt32(i)).append(options.partitionField(), new BsonString(partition))
                .append("shop", new BsonString("shop-" + i))
                .append("amount", new BsonInt32(amount)));
        }
        source().insertMany(orders);
    }

    void setAmount(Object id, int amount) {
        source().updateOne(new BsonDocument("_id", bson(id)),
                new BsonDocument("$set", new BsonDocument("amount", new BsonInt32(amount))));
    }

    private static BsonValue bson(Object id) {
        return id instanceof Integer number ? new BsonInt32(number) : new BsonString(id.toString());
    }

    /** What a reader sees: it reads the view document, then the rows of its current generation. */
    List<Document> read(ViewDefinition view) {
        Document document = database.getCollection(options.viewsCollection())
            .find(new Document("_id", view.id().asString().getValue()).append(options.partitionField(), view.partition()))
            .first();
        return database.getCollection(view.targetCollection())
            .find(ViewFilter.of(document, options.partitionField(), options.statusField()))
            .into(new ArrayList<>());
    }

    /** What a reader sees, as stored: the rows of the current generation, numbers in their own types. */
    List<BsonDocument> readRows(ViewDefinition view) {
        Document document = database.getCollection(options.viewsCollection())
            .find(new Document("_id", view.id().asString().getValue()).append(options.partitionField(), view.partition()))
            .first();
        return database.getCollection(view.targetCollection(), BsonDocument.class)
            .find(ViewFilter.of(document, options.partitionField(), options.statusField()))
            .into(new ArrayList<>());
    }

    /** The rows a reader sees, as {@code _id.id -> field}. */
    Map<Object, Object> readField(ViewDefinition view, String field) {
        return fieldOf(read(view), field);
    }

    /** The rows a reader of a given generation sees, as {@code _id.id -> field}. */
    Map<Object, Object> readField(ViewDefinition view, Generation generation, String field) {
        return fieldOf(database.getCollection(view.targetCollection())
            .find(ViewFilter.of(options.partitionField(), view.partition(), generation))
            .into(new ArrayList<>()), field);
    }

    private static Map<Object, Object> fieldOf(List<Document> rows, String field) {
        Map<Object, Object> values = new TreeMap<>();
        for (Document row : rows) {
            values.put(row.get("_id", Document.class).get("id"), row.get(field));
        }
        return values;
    }

    ViewStatus status(ViewDefinition view) {
        return new StatusStore(database, settings).read(view);
    }

    /** Every row of the target in the partition, whatever its generation. */
    List<BsonDocument> allRows(String partition) {
        return target().find(new BsonDocument(options.partitionField(), new BsonString(partition)))
            .into(new ArrayList<>());
    }

    /** Ends the lease on the view, as the time of a pass paused past it would. */
    void expireLease(ViewDefinition view) {
        views().updateOne(new BsonDocument("_id", view.id()), new BsonDocument("$set",
                new BsonDocument(options.statusField() + ".lease.until", new BsonDateTime(0))));
    }

    /** Puts a lease on the view as another pass would. */
    void lease(ViewDefinition view, String owner, Instant until) {
        views().updateOne(new BsonDocument("_id", view.id()),
                new BsonDocument("$set", new BsonDocument(options.statusField() + ".lease",
                        new BsonDocument("owner", new BsonString(owner))
                            .append("until", new BsonDateTime(until.toEpochMilli())))));
    }

    /** Stores a status of the format before row versions, and rows of its generation, as an older engine left them. */
    void legacyView(ViewDefinition view, ObjectId generation, Map<String, Integer> totals) {
        views().updateOne(new BsonDocument("_id", view.id()), new BsonDocument("$set", new BsonDocument(
                options.statusField(), new BsonDocument("state", new BsonString("ok"))
                    .append("generation", new BsonObjectId(generation)))));
        totals.forEach((shop, total) -> target().insertOne(new BsonDocument("_id",
                new BsonDocument("partition", new BsonString(view.partition()))
                    .append("generation", new BsonObjectId(generation)).append("id", new BsonString(shop)))
            .append("total", new BsonInt32(total))
            .append(options.partitionField(), new BsonString(view.partition()))
            .append(ViewFilter.GENERATION_FIELD, new BsonObjectId(generation))
            .append(ViewFilter.HASH_FIELD, new BsonString("h"))));
    }
}
