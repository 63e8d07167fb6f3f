package dev.materializer.spring.data;

import java.util.List;
import java.util.Map;

import dev.materializer.spring.autoconfigure.data.MaterializerDataAutoConfiguration;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.annotation.Id;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.mapping.Field;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.data.mongodb.core.query.Criteria.where;

/**
 * The typed reader, on rows laid out as the engine stores them: the current generation of the
 * tenant only, narrowed by the caller's criteria, sort, skip and limit; each row mapped with its own
 * key in the type's id property (a record's {@code id}, an {@code @Id} property), queries on that
 * property reaching the stored key; an unknown view named with its tenant.
 */
@MongoTest(MongoKind.IN_PROCESS)
class MaterializedViewsTests {

    private static final long OLD = 4;

    private static final long CURRENT = 5;

    /** A row as a record: Spring Data maps {@code id} to {@code _id}, which the reader fills with the row's key. */
    record Revenue(String id, double revenue, int units) {
    }

    /** A row whose key is in an {@code @Id} property of another name, and a content field of another name. */
    record Product(@Id String product, @Field("revenue") double total) {
    }

    /** A compound group key, and a row of it. */
    record CustomerYear(String customer, int year) {
    }

    record Spent(CustomerYear id, double spent) {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MaterializerDataAutoConfiguration.class));

    @Test
    void rowsOfTheCurrentGenerationOfTheTenantMapToARecordWithTheRowKeyInItsId(TestMongo mongo) {
        List<Revenue> rows = views(mongo).find("acme", "acme:revenue", new Query(), Revenue.class);

        assertThat(rows).containsExactly(new Revenue("gadget", 10.0, 1), new Revenue("widget", 5.0, 2));
    }

    @Test
    void theCallersCriteriaSortSkipAndLimitNarrowTheRows(TestMongo mongo) {
        MaterializedViews views = views(mongo);

        assertThat(views.find("acme", "acme:revenue", Query.query(where("revenue").lt(8)), Revenue.class))
            .extracting(Revenue::id).containsExactly("widget");
        assertThat(views.find("acme", "acme:revenue", new Query().with(Sort.by(Sort.Direction.DESC, "units")),
                Revenue.class)).extracting(Revenue::id).containsExactly("widget", "gadget");
        assertThat(views.find("acme", "acme:revenue", new Query().with(Sort.by("id")).skip(1).limit(1), Revenue.class))
            .extracting(Revenue::id).containsExactly("widget");
        // Criteria on the id property are on the row's key, not on the engine's stored _id.
        assertThat(views.find("acme", "acme:revenue", Query.query(where("id").is("widget")), Revenue.class))
            .extracting(Revenue::revenue).containsExactly(5.0);
        assertThat(views.find("acme", "acme:revenue",
                Query.query(new Criteria().orOperator(where("id").is("gadget"), where("units").is(2))), Revenue.class))
            .hasSize(2);
        assertThat(views.count("acme", "acme:revenue", Query.query(where("units").gte(1)), Revenue.class)).isEqualTo(2);
        assertThat(views.findByKey("acme", "acme:revenue", "widget", Revenue.class)).contains(new Revenue("widget", 5.0, 2));
        assertThat(views.findByKey("acme", "acme:revenue", "gizmo", Revenue.class)).isEmpty();
    }

    @Test
    void anIdPropertyOfAnotherNameGetsTheKeyAndMappedFieldNamesAreQueried(TestMongo mongo) {
        MaterializedViews views = views(mongo);

        assertThat(views.find("acme", "acme:revenue", Query.query(where("product").is("gadget")), Product.class))
            .containsExactly(new Product("gadget", 10.0));
        assertThat(views.find("acme", "acme:revenue", Query.query(where("total").gt(6)), Product.class))
            .extracting(Product::product).containsExactly("gadget");
    }

    @Test
    void documentsComeAsThePipelineProducedThemWithoutEngineFields(TestMongo mongo) {
        MaterializedViewRows<Document> read = views(mongo).read("acme", "{tenant}:revenue", new Query(), Document.class);

        assertThat(read.id()).isEqualTo("acme:revenue");
        assertThat(read.state()).isEqualTo("ok");
        assertThat(read.generation()).isEqualTo(CURRENT);
        assertThat(read.rows()).hasSize(2);
        assertThat(read.rows().get(1)).containsOnlyKeys("_id", "revenue", "units").containsEntry("_id", "widget");
        Map<?, ?> first = views(mongo).find("acme", "acme:revenue", new Query(), Map.class).get(0);
        assertThat(first.get("_id")).isEqualTo("gadget");
        ViewTemplate template = ViewTemplate.withId("{tenant}:revenue").collections("orders").targetCollection("t").build();
        assertThat(views(mongo).find("acme", template, new Query(), Revenue.class)).hasSize(2);
    }

    @Test
    void anUnknownViewOrAnotherTenantsViewIsNotFoundNamingTenantAndView(TestMongo mongo) {
        MaterializedViews views = views(mongo);

        assertThatThrownBy(() -> views.find("globex", "{tenant}:revenue", new Query(), Revenue.class))
            .isInstanceOf(MaterializedViewNotFoundException.class)
            .hasMessageContaining("Tenant 'globex' has no view 'globex:revenue'");
        assertThatThrownBy(() -> views.find("globex", "acme:revenue", new Query(), Revenue.class))
            .isInstanceOf(MaterializedViewNotFoundException.class)
            .hasMessageContaining("Tenant 'globex' has no view 'acme:revenue'");
        assertThatThrownBy(() -> views.find("acme", "acme:nope", new Query(), Revenue.class))
            .isInstanceOf(MaterializedViewNotFoundException.class).hasMessageContaining("'acme:nope'");
    }

    @Test
    void aCompoundKeyMapsToTheIdPropertyAndItsFieldsAreQueried(TestMongo mongo) {
        mongo.database().getCollection("_aggregations").insertOne(new Document("_id", "acme:spent").append("_part", "acme")
            .append("targetCollection", "spent").append("_materializerStatus", new Document("generation", 1L)));
        for (int year : List.of(2025, 2026)) {
            Document key = new Document("customer", "alice").append("year", year);
            mongo.database().getCollection("spent").insertOne(new Document("_id", new Document("partition", "acme")
                .append("id", key)).append("_part", "acme").append("_viewRow", key).append("_viewFrom", 1L)
                .append("_viewTo", Long.MAX_VALUE).append("spent", year - 2000.0));
        }
        MaterializedViews views = new MaterializedViews(new MongoTemplate(mongo.client(), mongo.database().getName()),
                ViewNaming.DEFAULTS);

        assertThat(views.find("acme", "acme:spent", Query.query(where("id.year").is(2026)), Spent.class))
            .containsExactly(new Spent(new CustomerYear("alice", 2026), 26.0));
    }

    @Test
    void aViewNeverRunHasNoRows(TestMongo mongo) {
        mongo.database().getCollection("_aggregations").insertOne(new Document("_id", "acme:fresh")
            .append("_part", "acme").append("targetCollection", "revenue_by_product"));
        storedRevenueView(mongo);

        assertThat(views(mongo).find("acme", "acme:fresh", new Query(), Revenue.class)).isEmpty();
    }

    @Test
    void theReaderIsABeanOnTheApplicationsMongoTemplate(TestMongo mongo) {
        storedRevenueView(mongo);
        this.runner.withBean(MongoTemplate.class, () -> new MongoTemplate(mongo.client(), mongo.database().getName()))
            .run(context -> assertThat(context.getBean(MaterializedViews.class)
                .find("acme", "acme:revenue", new Query(), Revenue.class)).hasSize(2));
    }

    private static MaterializedViews views(TestMongo mongo) {
        if (mongo.database().getCollection("_aggregations").countDocuments() == 0) {
            storedRevenueView(mongo);
        }
        return new MaterializedViews(new MongoTemplate(mongo.client(), mongo.database().getName()), ViewNaming.DEFAULTS);
    }

    /** A revenue view of acme at generation 5 whose target holds a version it superseded, one of the next attempt, and globex rows. */
    private static void storedRevenueView(TestMongo mongo) {
        mongo.database().getCollection("_aggregations").insertOne(new Document("_id", "acme:revenue").append("_part", "acme")
            .append("collections", List.of("orders"))
            .append("targetCollection", "revenue_by_product")
            .append("_materializerStatus", new Document("state", "ok").append("generation", CURRENT)));
        mongo.database().getCollection("revenue_by_product").insertMany(List.of(
                row("acme", OLD, CURRENT, "widget", 1.0).append("units", 1),
                row("acme", CURRENT, Long.MAX_VALUE, "widget", 5.0).append("units", 2),
                row("acme", OLD, Long.MAX_VALUE, "gadget", 10.0).append("units", 1),
                row("acme", CURRENT + 1, Long.MAX_VALUE, "gizmo", 3.0).append("units", 1),
                row("globex", CURRENT, Long.MAX_VALUE, "widget", 99.0).append("units", 9)));
    }

    private static Document row(String tenant, long from, long to, @Nullable String id, double revenue) {
        return new Document("_id", new Document("partition", tenant).append("generation", new ObjectId()).append("id", id))
            .append("_part", tenant)
            .append("_viewRow", id)
            .append("_viewFrom", from)
            .append("_viewTo", to)
            .append("_viewHash", "hash-" + id)
            .append("revenue", revenue);
    }
}
