package dev.materializer.testing.server;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The non-unique indexes the in-process server keeps: which documents a query examines with one
 * (counted where the server tests a document against a query, {@code documentMatchesQuery}), that it
 * answers what the scan answers in the cases where MongoDB's equality is subtle, and that the index
 * is listed, built from the documents already there, and let go with its drop or its collection's.
 * {@link SecondaryIndexDifferentialTest} compares the answers on random documents, writes and queries.
 */
class SecondaryIndexTest {

    /** A backend that counts, per collection name, the documents its queries examine. */
    private static final class CountingBackend extends InProcessBackend {

        private final Map<String, LongAdder> examined = new ConcurrentHashMap<>();

        @Override
        protected InProcessCollection openCollection(de.bwaldvogel.mongo.MongoDatabase database, String collectionName,
                CollectionOptions options, CursorRegistry cursorRegistry) {
            LongAdder count = examined.computeIfAbsent(collectionName, name -> new LongAdder());
            return new InProcessCollection(database, collectionName, options, cursorRegistry) {

                @Override
                protected boolean documentMatchesQuery(de.bwaldvogel.mongo.bson.Document document,
                        de.bwaldvogel.mongo.bson.Document query) {
                    count.increment();
                    return super.documentMatchesQuery(document, query);
                }
            };
        }

        /** The documents examined in the collection since the last call. */
        long examined(String collection) {
            return examined.computeIfAbsent(collection, name -> new LongAdder()).sumThenReset();
        }
    }

    private CountingBackend backend;

    private MongoServer server;

    private MongoClient client;

    private MongoDatabase db;

    private MongoCollection<Document> orders;

    @BeforeEach
    void start() {
        backend = new CountingBackend();
        server = InProcessMongoServer.create(backend);
        InetSocketAddress address = server.bind();
        client = MongoClients.create("mongodb://127.0.0.1:" + address.getPort());
        db = client.getDatabase("indexes");
        orders = db.getCollection("orders");
        List<Document> documents = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            documents.add(new Document("_id", i).append("_part", "t" + (i % 100)).append("customer", "c" + (i % 7))
                .append("amount", i));
        }
        orders.insertMany(documents);
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void anEqualityOnTheLeadingFieldExaminesOnlyItsDocuments() {
        orders.createIndex(Indexes.ascending("_part"));
        backend.examined("orders");

        assertThat(orders.find(Filters.and(Filters.eq("_part", "t3"), Filters.gt("amount", 500))).into(new ArrayList<>()))
            .extracting(document -> document.getInteger("_id"))
            .containsExactly(503, 603, 703, 803, 903);
        assertThat(backend.examined("orders")).isEqualTo(10);

        assertThat(orders.find(Filters.in("_part", "t3", "t4")).into(new ArrayList<>())).hasSize(20);
        assertThat(backend.examined("orders")).isEqualTo(20);

        assertThat(db.runCommand(new Document("count", "orders").append("query", new Document("_part", "t5")))
            .get("n", Number.class).intValue()).isEqualTo(10);
        assertThat(backend.examined("orders")).isEqualTo(10);
    }

    @Test
    void anOrNarrowsWhenEveryBranchDoesAndScansOtherwise() {
        orders.createIndex(Indexes.ascending("_part"));
        backend.examined("orders");

        assertThat(orders.find(Filters.or(Filters.eq("_part", "t1"),
                Filters.and(Filters.eq("_part", "t2"), Filters.eq("customer", "c2")))).into(new ArrayList<>()))
            .hasSize(10 + 2);
        assertThat(backend.examined("orders")).isEqualTo(20);

        assertThat(orders.find(Filters.or(Filters.eq("_part", "t1"), Filters.eq("customer", "c2"))).into(new ArrayList<>()))
            .hasSize(10 + 143 - 1);
        assertThat(backend.examined("orders")).isEqualTo(1_000);
    }

    @Test
    void anAggregatesInputIsNarrowedByItsLeadingMatchAndThePipelineStillDecides() {
        orders.createIndex(Indexes.ascending("_part"));
        backend.examined("orders");

        List<Document> leading = List.of(
                new Document("$match", new Document("$or", List.of(
                        new Document("$and", List.of(new Document("_part", "t1"), new Document("customer", "c1"))),
                        new Document("_part", "t2")))),
                new Document("$match", new Document("amount", new Document("$lt", 500))),
                new Document("$group", new Document("_id", "$_part").append("n", new Document("$sum", 1))),
                new Document("$sort", new Document("_id", 1)));
        assertThat(orders.aggregate(leading).into(new ArrayList<>())).containsExactly(
                new Document("_id", "t1").append("n", 1), new Document("_id", "t2").append("n", 5));
        assertThat(backend.examined("orders")).isEqualTo(20);

        assertThat(orders.countDocuments(Filters.eq("_part", "t9"))).isEqualTo(10);
        assertThat(backend.examined("orders")).isEqualTo(10);

        List<Document> notLeading = List.of(new Document("$project", new Document("_part", 1)),
                new Document("$match", new Document("_part", "t1")));
        assertThat(orders.aggregate(notLeading).into(new ArrayList<>())).hasSize(10);
        assertThat(backend.examined("orders")).isEqualTo(1_000);
    }

    @Test
    void aLookupsPipelineIsNarrowedByItsLeadingMatchWhenEveryLookupOfItsCollectionLeadsWithIt() {
        MongoCollection<Document> target = db.getCollection("target");
        target.createIndex(Indexes.ascending("_part", "_viewRow"));
        List<Document> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(new Document("_id", i).append("_part", "p" + (i % 10)).append("_viewRow", i));
        }
        target.insertMany(rows);
        backend.examined("target");

        Document versionsOfKeys = lookup("p1", List.of(1, 11, 2), "versions");
        List<Document> read = orders.aggregate(List.of(new Document("$match", new Document("_id", 1)), versionsOfKeys))
            .into(new ArrayList<>());
        assertThat(read.get(0).getList("versions", Document.class)).extracting(row -> row.getInteger("_id"))
            .containsExactly(1, 11);
        assertThat(backend.examined("target")).isEqualTo(2);

        // Two lookups of the target that lead with different matches: which read is whose is not known
        orders.aggregate(List.of(new Document("$match", new Document("_id", 1)), versionsOfKeys,
                lookup("p2", List.of(2), "others"))).into(new ArrayList<>());
        assertThat(backend.examined("target")).isEqualTo(200);
    }

    private static Document lookup(String partition, List<Integer> rows, String as) {
        return new Document("$lookup", new Document("from", "target")
            .append("pipeline", List.of(new Document("$match", new Document("_part", partition)
                .append("_viewRow", new Document("$in", rows))), new Document("$sort", new Document("_viewRow", 1))))
            .append("as", as));
    }

    @Test
    void updatesAndDeletesExamineTheirSelectorsDocumentsAndKeepTheIndexCurrent() {
        orders.createIndex(Indexes.ascending("_part"));
        backend.examined("orders");

        assertThat(orders.updateMany(Filters.eq("_part", "t1"), Updates.set("_part", "moved")).getModifiedCount())
            .isEqualTo(10);
        assertThat(backend.examined("orders")).isEqualTo(10);
        assertThat(orders.replaceOne(Filters.eq("_part", "t2"), new Document("_part", "moved")).getModifiedCount())
            .isEqualTo(1);
        assertThat(backend.examined("orders")).isEqualTo(10);
        assertThat(orders.deleteMany(Filters.eq("_part", "t3")).getDeletedCount()).isEqualTo(10);
        assertThat(backend.examined("orders")).isEqualTo(10);
        assertThat(orders.findOneAndUpdate(Filters.eq("_part", "t4"), Updates.unset("_part"))).isNotNull();
        assertThat(backend.examined("orders")).isEqualTo(1);

        assertThat(orders.countDocuments(Filters.eq("_part", "moved"))).isEqualTo(11);
        assertThat(orders.countDocuments(Filters.eq("_part", "t1"))).isZero();
        assertThat(orders.countDocuments(Filters.eq("_part", "t2"))).isEqualTo(9);
        assertThat(orders.countDocuments(Filters.eq("_part", "t3"))).isZero();
        assertThat(orders.countDocuments(Filters.eq("_part", null))).isEqualTo(1);
        backend.examined("orders");
        orders.insertOne(new Document("_id", -1).append("_part", "t1"));
        assertThat(orders.find(Filters.eq("_part", "t1")).into(new ArrayList<>())).hasSize(1);
        assertThat(backend.examined("orders")).isEqualTo(1);
    }

    @Test
    void equalityIsTheServersNumbersOfAnyTypeNullForMissingAndAnArrayUnderEachElement() {
        MongoCollection<Document> values = db.getCollection("values");
        values.insertMany(List.of(
                new Document("_id", 1).append("v", 1), new Document("_id", 2).append("v", 1L),
                new Document("_id", 3).append("v", 1.0), new Document("_id", 4).append("v", Decimal128.parse("1")),
                new Document("_id", 5).append("v", 0.0), new Document("_id", 6).append("v", -0.0),
                new Document("_id", 7), new Document("_id", 8).append("v", null),
                new Document("_id", 9).append("v", List.of(2, 1)), new Document("_id", 10).append("v", List.of("1")),
                new Document("_id", 11).append("v", new Document("x", 1)), new Document("_id", 12).append("v", List.of()),
                new Document("_id", 13).append("v", List.of(List.of(1))), new Document("_id", 14).append("v", "1"),
                new Document("_id", 15).append("v", new Date(1)), new Document("_id", 16).append("v", java.util.Arrays.asList(3, null))));
        values.createIndex(Indexes.ascending("v"));
        backend.examined("values");

        assertThat(ids(values, Filters.eq("v", 1))).containsExactly(1, 2, 3, 4, 9);
        assertThat(backend.examined("values")).isEqualTo(5 + 2);
        assertThat(ids(values, Filters.eq("v", 0))).containsExactly(5, 6);
        assertThat(ids(values, Filters.eq("v", null))).containsExactly(7, 8, 16);
        assertThat(backend.examined("values")).isEqualTo(2 + 2 + 3 + 2);
        assertThat(ids(values, Filters.in("v", "1", new Date(1)))).containsExactly(10, 14, 15);
        assertThat(ids(values, Filters.eq("v", List.of(2, 1)))).containsExactly(9);
        assertThat(backend.examined("values")).isEqualTo(3 + 2 + 16);
        assertThat(ids(values, Filters.eq("v", new Document("x", 1)))).containsExactly(11);
        assertThat(ids(values, Filters.in("v", List.of()))).isEmpty();
    }

    @Test
    void aCompoundIndexServesItsLeadingFieldsOnly() {
        MongoCollection<Document> rows = db.getCollection("rows");
        List<Document> documents = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            documents.add(new Document("_id", i).append("_part", "p" + (i % 10)).append("_viewRow", "r" + (i % 50))
                .append("n", new Document("x", i % 5)));
        }
        rows.insertMany(documents);
        rows.createIndex(Indexes.ascending("_part", "_viewRow"));
        rows.createIndex(Indexes.descending("n.x"));
        backend.examined("rows");

        assertThat(ids(rows, Filters.and(Filters.eq("_part", "p1"), Filters.in("_viewRow", "r1", "r11", "r2")))).hasSize(20);
        assertThat(backend.examined("rows")).isEqualTo(20);
        assertThat(ids(rows, Filters.eq("_part", "p1"))).hasSize(50);
        assertThat(backend.examined("rows")).isEqualTo(50);
        assertThat(ids(rows, Filters.eq("_viewRow", "r1"))).hasSize(10);
        assertThat(backend.examined("rows")).isEqualTo(500);
        assertThat(ids(rows, Filters.eq("n.x", 3))).hasSize(100);
        assertThat(backend.examined("rows")).isEqualTo(100);
    }

    @Test
    void theFirstIndexOfACollectionThatDoesNotExistYetIsKept() {
        MongoCollection<Document> target = db.getCollection("target");
        target.createIndex(Indexes.ascending("_part", "_viewTo", "_viewFrom"));
        List<Document> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(new Document("_id", i).append("_part", "p" + (i % 10)).append("_viewRow", i));
        }
        target.insertMany(rows);
        backend.examined("target");

        assertThat(ids(target, Filters.and(Filters.eq("_part", "p1"), Filters.exists("_viewTo", false)))).hasSize(10);
        assertThat(backend.examined("target")).isEqualTo(10);
    }

    @Test
    void theIndexIsListedAndDroppedWithItsCollectionOrByName() {
        orders.createIndex(Indexes.ascending("_part", "customer"), new IndexOptions().name("by_part"));
        assertThat(orders.listIndexes().into(new ArrayList<>()))
            .extracting(index -> index.getString("name"))
            .containsExactly("_id_", "by_part");
        backend.examined("orders");
        orders.countDocuments(Filters.eq("_part", "t1"));
        assertThat(backend.examined("orders")).isEqualTo(10);

        orders.dropIndex("by_part");
        assertThat(orders.listIndexes().into(new ArrayList<>())).extracting(index -> index.getString("name"))
            .containsExactly("_id_");
        orders.countDocuments(Filters.eq("_part", "t1"));
        assertThat(backend.examined("orders")).isEqualTo(1_000);

        orders.createIndex(Indexes.ascending("_part"));
        orders.drop();
        orders.insertMany(List.of(new Document("_part", "t1"), new Document("_part", "t2"), new Document("_part", "t3")));
        assertThat(orders.listIndexes().into(new ArrayList<>())).extracting(index -> index.getString("name"))
            .containsExactly("_id_");
        backend.examined("orders");
        orders.countDocuments(Filters.eq("_part", "t1"));
        assertThat(backend.examined("orders")).isEqualTo(3);
    }

    @Test
    void anIndexItDoesNotHonourIsListedAndScans() {
        orders.createIndex(Indexes.ascending("_part"), new IndexOptions().sparse(true).name("sparse"));
        orders.createIndex(Indexes.ascending("customer"),
                new IndexOptions().partialFilterExpression(Filters.gt("amount", 10)).name("partial"));
        assertThat(orders.listIndexes().into(new ArrayList<>())).extracting(index -> index.getString("name"))
            .containsExactly("_id_", "sparse", "partial");
        backend.examined("orders");

        assertThat(ids(orders, Filters.eq("_part", "t1"))).hasSize(10);
        assertThat(ids(orders, Filters.eq("customer", "c1"))).hasSize(143);
        assertThat(backend.examined("orders")).isEqualTo(2_000);
    }

    private static List<Integer> ids(MongoCollection<Document> collection, Bson filter) {
        List<Integer> ids = new ArrayList<>();
        collection.find(filter).forEach(document -> ids.add(document.getInteger("_id")));
        return ids;
    }
}
