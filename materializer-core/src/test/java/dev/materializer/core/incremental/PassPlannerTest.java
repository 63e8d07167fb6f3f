package dev.materializer.core.incremental;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.Operation;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link PassPlanner}: what it asks of the key finder, and when it stops. */
class PassPlannerTest {

    /** By customer, joining products by sku and regions by code. */
    private static final ViewShape JOINED = IncrementalShapeAnalysisTest.shape("""
            [{$lookup: {from: 'products', localField: 'product', foreignField: 'sku', as: 'p'}},
             {$lookup: {from: 'regions', localField: 'region', foreignField: 'code', as: 'r'}},
             {$group: {_id: '$customer', n: {$sum: 1}}}]""");

    private static AffectedKeys inserted(String collection, String field, String value) {
        BsonDocument document = new BsonDocument("_id", new BsonString(value)).append(field, new BsonString(value));
        return AffectedKeys.of(JOINED, collection,
                new SourceChange(Operation.INSERT, document, null, document.get("_id"), null, null, null));
    }

    private static List<BsonDocument> customers(int count) {
        List<BsonDocument> documents = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            documents.add(new BsonDocument("customer", new BsonString("c" + i)));
        }
        return documents;
    }

    @Test
    void onceThePlanIsWholeNoMoreQueryIsSent() {
        AffectedKeys keys = inserted("products", "sku", "apple").union(inserted("regions", "code", "north"));
        assertThat(keys.keyQueries()).hasSize(2);
        AtomicInteger queries = new AtomicInteger();

        PassPlanner.Plan plan = PassPlanner.plan(JOINED, keys, (filter, projection, taker) -> {
            queries.incrementAndGet();
            for (BsonDocument document : customers(PassPlanner.MAX_KEYS + 1)) {
                if (!taker.test(document)) {
                    return;
                }
            }
        });

        assertThat(plan.wholeBecause()).isEqualTo(PassPlanner.TOO_MANY_KEYS);
        assertThat(queries).as("the first query made the plan whole").hasValue(1);
    }

    @Test
    void aKeyQueryIsReadAsAStreamThatStopsAtTheBound() {
        AffectedKeys keys = inserted("products", "sku", "apple");
        AtomicInteger read = new AtomicInteger();

        PassPlanner.Plan plan = PassPlanner.plan(JOINED, keys, (filter, projection, taker) -> {
            // A result far larger than the bound, read one document at a time
            for (int i = 0; i < 1_000_000; i++) {
                read.incrementAndGet();
                if (!taker.test(new BsonDocument("customer", new BsonString("c" + i)))) {
                    return;
                }
            }
            throw new AssertionError("read past the bound");
        });

        assertThat(plan.wholeBecause()).isEqualTo(PassPlanner.TOO_MANY_KEYS);
        assertThat(read).as("the document past the bound is the last one read").hasValue(PassPlanner.MAX_KEYS + 1);
    }

    @Test
    void theKeysOfEveryQueryAreInTheScopeWhileUnderTheBound() {
        AffectedKeys keys = inserted("products", "sku", "apple").union(inserted("regions", "code", "north"));
        List<BsonDocument> filters = new ArrayList<>();

        PassPlanner.Plan plan = PassPlanner.plan(JOINED, keys, (filter, projection, taker) -> {
            filters.add(filter);
            assertThat(projection).isEqualTo(BsonDocument.parse("{customer: 1}"));
            taker.test(new BsonDocument("customer", new BsonString(filter.getFirstKey())));
        });

        assertThat(filters).containsExactly(BsonDocument.parse("{product: {$in: ['apple']}}"),
                BsonDocument.parse("{region: {$in: ['north']}}"));
        assertThat(plan.scope()).isNotNull();
        assertThat(plan.scope().description()).isEqualTo("2 keys of customer");
    }
}
