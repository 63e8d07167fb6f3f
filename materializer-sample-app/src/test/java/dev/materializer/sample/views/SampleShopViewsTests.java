package dev.materializer.sample.views;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewDefinitionParser;
import dev.materializer.spring.data.ViewNaming;
import dev.materializer.spring.data.ViewTemplate;
import dev.materializer.spring.data.ViewTemplates;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import org.springframework.data.mongodb.core.MongoTemplate;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop's view templates, installed by the starter's {@link ViewTemplates}: per-tenant ids,
 * idempotent, the engine's status left alone, every view valid for the engine, the Spring Data
 * aggregation of {@code revenue} rendered as the pipeline the shop always had.
 */
@MongoTest(MongoKind.IN_PROCESS)
class SampleShopViewsTests {

    @Test
    void everyTenantGetsEveryViewUnderAnIdThatCarriesTheTenant(TestMongo mongo) {
        ViewTemplates templates = templates(mongo);

        templates.installFor("acme");
        templates.installFor("globex");

        assertThat(views(mongo).find().map(view -> view.getString("_id")).into(new ArrayList<>()))
            .containsExactlyInAnyOrder("acme:revenue", "acme:top-customers", "acme:revenue-by-category",
                    "acme:best-product", "globex:revenue", "globex:top-customers", "globex:revenue-by-category",
                    "globex:best-product");
        Document revenue = views(mongo).find(eq("_id", "globex:revenue")).first();
        assertThat(revenue).containsEntry("_part", "globex").containsEntry("targetCollection", "revenue_by_product")
            .containsEntry("collections", List.of("orders"))
            .containsEntry("description", "Revenue, units and orders per product.");
    }

    @Test
    void installingAgainNeitherDuplicatesNorResetsTheStatusTheEngineWrote(TestMongo mongo) {
        ViewTemplates templates = templates(mongo);
        templates.installFor("acme");
        Document status = new Document("state", "ok").append("generation", 3L);
        views(mongo).updateOne(eq("_id", "acme:revenue"), Updates.set("_materializerStatus", status));

        templates.installFor("acme");

        assertThat(views(mongo).countDocuments()).isEqualTo(4);
        assertThat(views(mongo).find(eq("_id", "acme:revenue")).first()).containsEntry("_materializerStatus", status);
    }

    @Test
    void theRevenueAggregationIsThePipelineTheShopAlwaysHad() {
        ViewTemplate revenue = new ShopViews().revenueView();

        assertThat(revenue.pipeline()).containsExactly(Document.parse("""
                {"$group": {
                  "_id": "$product",
                  "revenue": {"$sum": {"$multiply": ["$quantity", "$price"]}},
                  "units": {"$sum": "$quantity"},
                  "orders": {"$sum": 1}
                }}"""));
    }

    @Test
    void everyShippedViewIsAValidViewForTheEngine(TestMongo mongo) throws Exception {
        templates(mongo).installFor("acme");
        ViewDefinitionParser parser = new ViewDefinitionParser("_part", "_aggregations");

        List<ViewDefinition> definitions = new ArrayList<>();
        for (Document view : views(mongo).find()) {
            definitions.add(parser.parse(view.toBsonDocument()));
        }

        assertThat(definitions).hasSize(4).allSatisfy(view -> assertThat(view.partition()).isEqualTo("acme"));
        ViewDefinition revenue = byId(definitions, "acme:revenue");
        assertThat(revenue.sourceFields()).containsKey("orders");
        assertThat(byId(definitions, "acme:revenue-by-category").collections()).containsExactly("orders", "products");
        assertThat(byId(definitions, "acme:revenue-by-category").pipeline().get(0).containsKey("$lookup")).isTrue();
        assertThat(byId(definitions, "acme:best-product").collections()).containsExactly(revenue.targetCollection());
    }

    private static ViewDefinition byId(List<ViewDefinition> definitions, String id) {
        return definitions.stream().filter(view -> view.key().id().equals(id)).findFirst().orElseThrow();
    }

    private static ViewTemplates templates(TestMongo mongo) {
        ShopViews views = new ShopViews();
        Map<String, ViewTemplate> beans = new java.util.LinkedHashMap<>();
        beans.put("revenueView", views.revenueView());
        beans.put("topCustomersView", views.topCustomersView());
        beans.put("revenueByCategoryView", views.revenueByCategoryView());
        beans.put("bestProductView", views.bestProductView());
        return new ViewTemplates(new MongoTemplate(mongo.client(), mongo.database().getName()), ViewNaming.DEFAULTS, beans);
    }

    private static MongoCollection<Document> views(TestMongo mongo) {
        return mongo.database().getCollection("_aggregations");
    }
}
