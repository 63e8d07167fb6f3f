package dev.materializer.sample.views;

import java.util.List;

import dev.materializer.sample.InvalidInputException;
import dev.materializer.sample.MaterializerFields;
import dev.materializer.sample.NotFoundException;
import dev.materializer.spring.data.MaterializedViews;
import dev.materializer.spring.data.ViewNaming;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import org.springframework.data.mongodb.core.MongoTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reading contract, on rows laid out as the engine stores them: a reader sees the current
 * generation of its tenant only, each row with its own key and without the engine's fields.
 */
@MongoTest(MongoKind.IN_PROCESS)
class SampleViewReaderTests {

    private static final MaterializerFields FIELDS = new MaterializerFields("_part", "_materializerStatus", "_aggregations");

    private static final long OLD = 4;

    private static final long CURRENT = 5;

    @Test
    void aViewReadsOnlyTheCurrentGenerationOfItsTenantWithoutEngineFields(TestMongo mongo) {
        ViewReader reader = storedRevenueView(mongo);

        ViewRows rows = reader.rows("acme", "revenue", null, 100);

        assertThat(rows.view()).isEqualTo("acme:revenue");
        assertThat(rows.state()).isEqualTo("ok");
        assertThat(rows.generation()).isEqualTo("5");
        assertThat(rows.rows()).extracting(ViewRow::id).containsExactly("gadget", "widget");
        assertThat(rows.rows().get(1).content()).containsOnlyKeys("revenue", "units").containsEntry("revenue", 5.0);
    }

    @Test
    void rowsSortByAFieldDescendingAndTheLimitCutsThem(TestMongo mongo) {
        ViewReader reader = storedRevenueView(mongo);

        assertThat(reader.rows("acme", "revenue", "-units", 100).rows()).extracting(ViewRow::id)
            .containsExactly("widget", "gadget");
        assertThat(reader.rows("acme", "revenue", "id", 1).rows()).extracting(ViewRow::id).containsExactly("gadget");
    }

    @Test
    void aViewNeverRunHasNoRowsAndNoState(TestMongo mongo) {
        views(mongo).insertOne(new Document("_id", "acme:revenue").append("_part", "acme")
            .append("targetCollection", "revenue_by_product"));
        mongo.database().getCollection("revenue_by_product").insertOne(row("acme", OLD, Long.MAX_VALUE, "widget", 1.0));

        ViewRows rows = reader(mongo).rows("acme", "revenue", null, 100);

        assertThat(rows.state()).isNull();
        assertThat(rows.generation()).isNull();
        assertThat(rows.rows()).isEmpty();
    }

    @Test
    void aTenantCannotReadAnotherTenantsViewAndAnUnknownViewIsNotFound(TestMongo mongo) {
        ViewReader reader = storedRevenueView(mongo);

        assertThatThrownBy(() -> reader.rows("globex", "revenue", null, 100)).isInstanceOf(NotFoundException.class)
            .hasMessageContaining("tenant 'globex' has no view 'revenue'");
        assertThatThrownBy(() -> reader.rows("acme", "nope", null, 100)).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aSortThatIsNotAFieldAndALimitOutOfRangeAreRefused(TestMongo mongo) {
        ViewReader reader = storedRevenueView(mongo);

        assertThatThrownBy(() -> reader.rows("acme", "revenue", "$where", 10)).isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("sort must be a field");
        assertThatThrownBy(() -> reader.rows("acme", "revenue", null, 0)).isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("limit must be between 1 and");
    }

    @Test
    void tenantsAndTheirViewsAreListedWithTheStatusOfEachView(TestMongo mongo) {
        ViewReader reader = storedRevenueView(mongo);
        views(mongo).insertOne(new Document("_id", "acme:top-customers").append("_part", "acme")
            .append("collections", List.of("orders")).append("targetCollection", "top_customers")
            .append("_materializerStatus", new Document("state", "errored").append("lastError", "boom")));
        views(mongo).insertOne(new Document("_id", "globex:revenue").append("_part", "globex"));

        assertThat(reader.tenants()).containsOnlyKeys("acme", "globex")
            .containsEntry("acme", List.of("revenue", "top-customers"))
            .containsEntry("globex", List.of("revenue"));
        assertThat(reader.views("acme")).extracting(ViewSummary::name, ViewSummary::state, ViewSummary::lastError)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("revenue", "ok", null),
                    org.assertj.core.groups.Tuple.tuple("top-customers", "errored", "boom"));
        assertThat(reader.views("acme").get(0).generation()).isEqualTo("5");
        assertThat(reader.views("acme").get(0).sources()).containsExactly("orders");
    }

    /** A revenue view of acme at generation 5 whose target holds a version it superseded, one of the
     * next attempt, and globex rows. */
    private static ViewReader storedRevenueView(TestMongo mongo) {
        views(mongo).insertOne(new Document("_id", "acme:revenue").append("_part", "acme")
            .append("collections", List.of("orders"))
            .append("targetCollection", "revenue_by_product")
            .append("_materializerStatus", new Document("state", "ok").append("generation", CURRENT)
                .append("previous", new Document("generation", OLD))));
        mongo.database().getCollection("revenue_by_product").insertMany(List.of(
                row("acme", OLD, CURRENT, "widget", 1.0).append("units", 1),
                row("acme", CURRENT, Long.MAX_VALUE, "widget", 5.0).append("units", 2),
                row("acme", OLD, Long.MAX_VALUE, "gadget", 10.0).append("units", 1),
                row("acme", CURRENT + 1, Long.MAX_VALUE, "gizmo", 3.0).append("units", 1),
                row("globex", CURRENT, Long.MAX_VALUE, "widget", 99.0).append("units", 9)));
        return reader(mongo);
    }

    /** A row version as the engine stores it: visible in the generations from {@code from} up to {@code to}. */
    private static Document row(String tenant, long from, long to, String id, double revenue) {
        return new Document("_id", new Document("partition", tenant).append("generation", new ObjectId()).append("id", id))
            .append("_part", tenant)
            .append("_viewRow", id)
            .append("_viewFrom", from)
            .append("_viewTo", to)
            .append("_viewHash", "hash-" + id)
            .append("revenue", revenue);
    }

    private static com.mongodb.client.MongoCollection<Document> views(TestMongo mongo) {
        return mongo.database().getCollection("_aggregations");
    }

    private static ViewReader reader(TestMongo mongo) {
        MongoTemplate template = new MongoTemplate(mongo.client(), mongo.database().getName());
        return new ViewReader(template, FIELDS, new MaterializedViews(template, ViewNaming.DEFAULTS));
    }
}
