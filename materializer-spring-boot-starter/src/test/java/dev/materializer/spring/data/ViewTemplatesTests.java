package dev.materializer.spring.data;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import dev.materializer.spring.autoconfigure.data.MaterializerDataAutoConfiguration;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.aggregation.Aggregation;
import org.springframework.data.mongodb.core.aggregation.ArithmeticOperators;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.data.mongodb.core.aggregation.Aggregation.group;

/**
 * View templates as beans: installed per tenant idempotently without touching the engine's status,
 * applied again at startup to the tenants that have them, removed per tenant, checked with the
 * engine's parser and scope guard so a bad one fails the context naming its bean; nothing without
 * Spring Data or a MongoTemplate.
 */
@MongoTest(MongoKind.IN_PROCESS)
class ViewTemplatesTests {

    private static final String STATUS = "_materializerStatus";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MaterializerDataAutoConfiguration.class));

    @Test
    void everyTemplateBeanIsInstalledForATenantUnderAnIdWithTheTenant(TestMongo mongo) {
        on(mongo).withUserConfiguration(ShopTemplates.class).run(context -> {
            ViewTemplates templates = context.getBean(ViewTemplates.class);

            assertThat(templates.installFor("acme")).containsExactly("acme:revenue", "acme:top-customers");
            templates.installFor("globex");

            assertThat(views(mongo).find().map(view -> view.getString("_id")).into(new ArrayList<>()))
                .containsExactlyInAnyOrder("acme:revenue", "acme:top-customers", "globex:revenue",
                        "globex:top-customers");
            Document revenue = views(mongo).find(eq("_id", "globex:revenue")).first();
            assertThat(revenue).containsEntry("_part", "globex").containsEntry("collections", List.of("orders"))
                .containsEntry("targetCollection", "revenue_by_product").containsEntry("description", "per product")
                .containsEntry("sourceFields", new Document("orders", List.of("product", "price")))
                .doesNotContainKey(STATUS);
            // The Spring Data aggregation, rendered as written.
            Document top = views(mongo).find(eq("_id", "acme:top-customers")).first();
            assertThat(top.getList("pipeline", Document.class).get(0).toJson())
                .isEqualTo("{\"$group\": {\"_id\": \"$customer\", \"spent\": {\"$sum\": {\"$multiply\": [\"$quantity\", \"$price\"]}}}}");
            assertThat(top).containsEntry("incremental", false);
        });
    }

    @Test
    void installingAgainNeitherDuplicatesNorResetsTheStatusTheEngineWrote(TestMongo mongo) {
        on(mongo).withUserConfiguration(ShopTemplates.class).run(context -> {
            ViewTemplates templates = context.getBean(ViewTemplates.class);
            templates.installFor("acme");
            Document status = new Document("state", "ok").append("generation", 7L);
            views(mongo).updateOne(eq("_id", "acme:revenue"), Updates.set(STATUS, status));
            Document before = views(mongo).find(eq("_id", "acme:revenue")).first();

            templates.installFor("acme");

            assertThat(views(mongo).countDocuments()).isEqualTo(2);
            assertThat(views(mongo).find(eq("_id", "acme:revenue")).first()).isEqualTo(before)
                .containsEntry(STATUS, status);
        });
    }

    @Test
    void atStartupAChangedTemplateReachesTheTenantsThatHaveItAndOnlyThem(TestMongo mongo) {
        Document status = new Document("state", "ok").append("generation", 3L);
        views(mongo).insertOne(new Document("_id", "acme:revenue").append("_part", "acme")
            .append("collections", List.of("orders"))
            .append("pipeline", List.of(new Document("$match", new Document("old", true))))
            .append("targetCollection", "revenue_by_product")
            .append("incremental", true)
            .append("owner", "kept")
            .append(STATUS, status));
        views(mongo).insertOne(new Document("_id", "globex:by-hand").append("_part", "globex")
            .append("collections", List.of("orders")).append("pipeline", List.of()).append("targetCollection", "x"));

        on(mongo).withUserConfiguration(ShopTemplates.class).run(context -> {
            assertThat(context).hasNotFailed();
            Document revenue = views(mongo).find(eq("_id", "acme:revenue")).first();
            assertThat(revenue.getList("pipeline", Document.class).get(0)).containsKey("$group");
            assertThat(revenue).containsEntry(STATUS, status).containsEntry("owner", "kept")
                .containsEntry("description", "per product").doesNotContainKey("incremental");
            // acme never had top-customers, globex no template view: nothing installed for them.
            assertThat(views(mongo).countDocuments()).isEqualTo(2);
            assertThat(views(mongo).find(eq("_id", "globex:by-hand")).first()).containsEntry("targetCollection", "x");
        });
    }

    @Test
    void removingATenantRemovesItsTemplateViewsOnly(TestMongo mongo) {
        on(mongo).withUserConfiguration(ShopTemplates.class).run(context -> {
            ViewTemplates templates = context.getBean(ViewTemplates.class);
            templates.installFor("acme");
            templates.installFor("globex");
            views(mongo).insertOne(new Document("_id", "acme:by-hand").append("_part", "acme"));

            assertThat(templates.removeFor("acme")).containsExactlyInAnyOrder("acme:revenue", "acme:top-customers");

            assertThat(views(mongo).find().map(view -> view.getString("_id")).into(new ArrayList<>()))
                .containsExactlyInAnyOrder("acme:by-hand", "globex:revenue", "globex:top-customers");
            assertThat(templates.removeFor("acme")).isEmpty();
        });
    }

    @Test
    void aTemplateTheEngineWouldRefuseFailsTheContextNamingItsBean(TestMongo mongo) {
        on(mongo).withBean("writesOut", ViewTemplate.class, () -> ViewTemplate.withId("{tenant}:out")
            .collections("orders").pipelineJson("[{$out: 'elsewhere'}]").targetCollection("t").build())
            .run(context -> assertThat(invalidTemplate(context.getStartupFailure()))
                .hasMessageContaining("View template bean 'writesOut' ({tenant}:out) is invalid")
                .hasMessageContaining("$out"));
        on(mongo).withBean("noSources", ViewTemplate.class, () -> ViewTemplate.withId("{tenant}:none")
            .pipelineJson("[]").targetCollection("t").build())
            .run(context -> assertThat(invalidTemplate(context.getStartupFailure()))
                .hasMessageContaining("View template bean 'noSources' ({tenant}:none) is invalid: collections must be"));
        on(mongo).withBean("intoViews", ViewTemplate.class, () -> ViewTemplate.withId("{tenant}:v")
            .collections("orders").targetCollection("_aggregations").build())
            .run(context -> assertThat(invalidTemplate(context.getStartupFailure()))
                .hasMessageContaining("View template bean 'intoViews'"));
        on(mongo).withUserConfiguration(ShopTemplates.class)
            .withBean("again", ViewTemplate.class, () -> ViewTemplate.withId("{tenant}:again")
                .collections("orders").targetCollection("revenue_by_product").build())
            .run(context -> assertThat(invalidTemplate(context.getStartupFailure()))
                .hasMessageContaining("is invalid: view template bean")
                .hasMessageContaining("has the same targetCollection 'revenue_by_product'")
                .hasMessageContaining("'again'").hasMessageContaining("'revenue'"));
    }

    @Test
    void aBlankOrPlaceholderTenantIsRefusedNamingTheRuleAndWritesNothing(TestMongo mongo) {
        on(mongo).withUserConfiguration(ShopTemplates.class).run(context -> {
            ViewTemplates templates = context.getBean(ViewTemplates.class);
            for (String tenant : List.of("", " ", "{tenant}", "acme{x}", " acme")) {
                org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(() -> templates.installFor(tenant))
                    .withMessageContaining("'" + tenant + "'")
                    .withMessageContaining(ViewTemplates.TENANT_RULE);
            }
            assertThat(views(mongo).countDocuments()).isZero();
        });
    }

    @Test
    void withTheMaterializerDisabledNoReaderNoInstallerAndNoProblemAdviceIsCreated(TestMongo mongo) {
        on(mongo).withUserConfiguration(ShopTemplates.class)
            .withConfiguration(AutoConfigurations.of(dev.materializer.spring.autoconfigure.MaterializerAutoConfiguration.class,
                    dev.materializer.spring.autoconfigure.web.MaterializerWebMvcAutoConfiguration.class))
            .withPropertyValues("materializer.enabled=false")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(MaterializedViews.class);
                assertThat(context).doesNotHaveBean(ViewTemplates.class);
                assertThat(context).doesNotHaveBean(dev.materializer.spring.web.MaterializedViewProblemAdvice.class);
                assertThat(context).doesNotHaveBean(dev.materializer.spring.autoconfigure.MaterializerProperties.class);
                assertThat(views(mongo).countDocuments()).isZero();
            });
    }

    @Test
    void anIdPatternWithoutTheTenantIsRefusedWhenBuilt() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ViewTemplate.withId("revenue"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must hold {tenant} exactly once");
    }

    @Test
    void bootsOwnMongoTemplateIsUsedAndTheViewsCollectionIsTheEngines(TestMongo mongo) {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
                    MaterializerDataAutoConfiguration.class))
            .withPropertyValues("spring.mongodb.uri=" + mongo.connectionString().getConnectionString(),
                    "spring.mongodb.database=" + mongo.database().getName(), "materializer.views-collection=my_views",
                    "materializer.partition-field=tenant")
            .withUserConfiguration(ShopTemplates.class)
            .run(context -> {
                assertThat(context).hasSingleBean(MaterializedViews.class);
                context.getBean(ViewTemplates.class).installFor("acme");
                assertThat(mongo.database().getCollection("my_views").find(eq("_id", "acme:revenue")).first())
                    .containsEntry("tenant", "acme").doesNotContainKey("_part");
            });
    }

    @Test
    void nothingWithoutSpringDataOrWithoutAMongoTemplate(TestMongo mongo) {
        on(mongo).withClassLoader(new FilteredClassLoader(MongoTemplate.class)).run(context ->
                assertThat(context).doesNotHaveBean(ViewTemplates.class).doesNotHaveBean(MaterializedViews.class));
        this.runner.run(context ->
                assertThat(context).doesNotHaveBean(ViewTemplates.class).doesNotHaveBean(MaterializedViews.class));
    }

    /** The failure of the context as the starter threw it. */
    private static InvalidViewTemplateException invalidTemplate(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidViewTemplateException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("the context did not fail with an invalid template", failure);
    }

    private ApplicationContextRunner on(TestMongo mongo) {
        return this.runner.withBean(MongoTemplate.class, () -> new MongoTemplate(mongo.client(), mongo.database().getName()));
    }

    private static MongoCollection<Document> views(TestMongo mongo) {
        return mongo.database().getCollection("_aggregations");
    }

    @Configuration(proxyBeanMethods = false)
    static class ShopTemplates {

        @Bean
        ViewTemplate revenue() {
            return ViewTemplate.withId("{tenant}:revenue")
                .collections("orders")
                .pipelineJson("[{$group: {_id: '$product', revenue: {$sum: '$price'}}}]")
                .targetCollection("revenue_by_product")
                .sourceFields("orders", "product", "price")
                .field("description", "per product")
                .build();
        }

        @Bean
        ViewTemplate topCustomers() {
            return ViewTemplate.withId("{tenant}:top-customers")
                .collections("orders")
                .aggregation(Aggregation.newAggregation(
                        group("customer").sum(ArithmeticOperators.valueOf("quantity").multiplyBy("price")).as("spent")))
                .targetCollection("top_customers")
                .incremental(false)
                .build();
        }
    }
}
