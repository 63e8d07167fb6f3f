package dev.materializer.core.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.mongodb.client.MongoDatabase;

import dev.materializer.core.Generation;
import dev.materializer.testing.Capability;
import dev.materializer.testing.RequiresCapability;
import dev.materializer.testing.TestMongo;

/**
 * Guarded pipelines run on a server: each kind of read sees only the documents of its partition
 * and, of targets of views, only the current generation. Written once, run against each kind of
 * server.
 */
abstract class ScopedPipelineContract {

    /** The orders collection is also the target of a view of p1, at generation 5. */
    private static final Map<String, Generation> GENERATIONS = Map.of("orders", Generation.of(5));

    private final ScopeGuard guard = new ScopeGuard("_part");

    @BeforeEach
    void storeTwoPartitionsAndTwoGenerations(TestMongo mongo) {
        MongoDatabase db = mongo.database();
        db.getCollection("orders").insertMany(List.of(
                new Document("_id", 1).append("_part", "p1").append("customer", "c1"),
                new Document("_id", 2).append("_part", "p2").append("customer", "c1"),
                new Document("_id", 3).append("_part", "p1").append("_viewFrom", 3L).append("_viewTo", Long.MAX_VALUE)
                    .append("customer", "c1"),
                new Document("_id", 4).append("_part", "p1").append("_viewFrom", 1L).append("_viewTo", 5L)
                    .append("customer", "c1"),
                new Document("_id", 5).append("_part", "p1").append("_viewFrom", 6L).append("_viewTo", Long.MAX_VALUE)
                    .append("customer", "c1")));
        db.getCollection("customers").insertMany(List.of(
                new Document("_id", "ann").append("_part", "p1").append("key", "c1"),
                new Document("_id", "bob").append("_part", "p2").append("key", "c1"),
                new Document("_id", "old").append("_part", "p1").append("_viewFrom", 1L).append("_viewTo", 2L)
                    .append("key", "c1")));
    }

    @Test
    void thePipelineReadsItsPartitionAndTheCurrentGenerationOnly(TestMongo mongo) throws Exception {
        assertThat(run(mongo, "[{$sort: {_id: 1}}, {$project: {_id: 1}}]")).containsExactly("{\"_id\": 1}",
                "{\"_id\": 3}");
    }

    @Test
    void aLookupByFieldsJoinsOnlyThePartition(TestMongo mongo) throws Exception {
        assertThat(run(mongo, "[{$match: {_id: 1}}, {$lookup: {from: 'customers', localField: 'customer',"
                + " foreignField: 'key', as: 'c'}}, {$project: {ids: '$c._id'}}]"))
                .containsExactly("{\"_id\": 1, \"ids\": [\"ann\"]}");
    }

    @Test
    void aLookupByPipelineJoinsOnlyThePartition(TestMongo mongo) throws Exception {
        assertThat(run(mongo, "[{$match: {_id: 1}}, {$lookup: {from: 'customers', let: {k: '$customer'},"
                + " pipeline: [{$match: {$expr: {$eq: ['$key', '$$k']}}}], as: 'c'}}, {$project: {ids: '$c._id'}}]"))
                .containsExactly("{\"_id\": 1, \"ids\": [\"ann\"]}");
    }

    @Test
    @RequiresCapability(Capability.GRAPH_LOOKUP_RESTRICT)
    void aGraphLookupSearchesOnlyThePartition(TestMongo mongo) throws Exception {
        assertThat(run(mongo, "[{$match: {_id: 1}}, {$graphLookup: {from: 'customers', startWith: '$customer',"
                + " connectFromField: 'key', connectToField: 'key', as: 'c'}}, {$project: {ids: '$c._id'}}]"))
                .containsExactly("{\"_id\": 1, \"ids\": [\"ann\"]}");
    }

    @Test
    void aLookupInsideAFacetJoinsOnlyThePartition(TestMongo mongo) throws Exception {
        assertThat(run(mongo, "[{$match: {_id: 1}}, {$facet: {f: [{$lookup: {from: 'customers', let: {k: '$customer'},"
                + " pipeline: [{$match: {$expr: {$eq: ['$key', '$$k']}}}], as: 'c'}}]}},"
                + " {$unwind: '$f'}, {$project: {_id: 0, ids: '$f.c._id'}}]"))
                .containsExactly("{\"ids\": [\"ann\"]}");
    }

    @Test
    @RequiresCapability(Capability.UNION_WITH)
    void aUnionWithAddsOnlyThePartition(TestMongo mongo) throws Exception {
        assertThat(run(mongo, "[{$match: {_id: 1}}, {$unionWith: 'customers'}, {$project: {_id: 1}}]"))
                .containsExactly("{\"_id\": 1}", "{\"_id\": \"ann\"}");
    }

    private List<String> run(TestMongo mongo, String pipelineJson) throws ScopeViolationException {
        List<BsonDocument> pipeline = BsonArray.parse(pipelineJson).stream().map(BsonValue::asDocument).toList();
        List<BsonDocument> guarded = guard.scope(pipeline, "p1", List.of("orders", "customers"), "orders", GENERATIONS);
        List<String> rows = new ArrayList<>();
        for (BsonDocument row : mongo.database().getCollection("orders", BsonDocument.class).aggregate(guarded)) {
            rows.add(row.toJson());
        }
        return rows;
    }
}
