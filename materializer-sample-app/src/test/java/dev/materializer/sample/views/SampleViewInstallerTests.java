package dev.materializer.sample.views;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewDefinitionParser;
import dev.materializer.sample.MaterializerFields;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.data.mongodb.core.MongoTemplate;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Installing the views of a tenant: per-tenant ids, idempotent, the engine's status left alone. */
@MongoTest(MongoKind.IN_PROCESS)
class SampleViewInstallerTests {

    private static final MaterializerFields FIELDS = new MaterializerFields("_part", "_materializerStatus", "_aggregations");

    @Test
    void everyTenantGetsEveryViewUnderAnIdThatCarriesTheTenant(TestMongo mongo) {
        ViewInstaller installer = installer(mongo, new ViewTemplates());

        installer.install("acme");
        installer.install("globex");

        assertThat(views(mongo).find().map(view -> view.getString("_id")).into(new ArrayList<>()))
            .containsExactlyInAnyOrder("acme:revenue", "acme:top-customers", "acme:revenue-by-category",
                    "acme:best-product", "globex:revenue", "globex:top-customers", "globex:revenue-by-category",
                    "globex:best-product");
        Document revenue = views(mongo).find(eq("_id", "globex:revenue")).first();
        assertThat(revenue).containsEntry("_part", "globex").containsEntry("targetCollection", "revenue_by_product")
            .containsEntry("collections", List.of("orders"));
    }

    @Test
    void installingAgainNeitherDuplicatesNorResetsTheStatusTheEngineWrote(TestMongo mongo) {
        ViewInstaller installer = installer(mongo, new ViewTemplates());
        installer.install("acme");
        Document status = new Document("state", "ok").append("generation", new ObjectId());
        views(mongo).updateOne(eq("_id", "acme:revenue"), Updates.set("_materializerStatus", status));

        installer.install("acme");

        assertThat(views(mongo).countDocuments()).isEqualTo(4);
        assertThat(views(mongo).find(eq("_id", "acme:revenue")).first()).containsEntry("_materializerStatus", status);
    }

    @Test
    void aChangedTemplateChangesTheDefinitionAndDropsSourceFieldsItNoLongerDeclares(TestMongo mongo) {
        installer(mongo, templates("""
                [{"name": "revenue", "collections": ["orders"], "pipeline": [{"$match": {"quantity": {"$gt": 0}}}],
                  "targetCollection": "revenue_by_product", "sourceFields": {"orders": ["quantity"]}}]
                """)).install("acme");

        installer(mongo, templates("""
                [{"name": "revenue", "collections": ["orders"], "pipeline": [{"$match": {"quantity": {"$gt": 1}}}],
                  "targetCollection": "revenue_by_product"}]
                """)).install("acme");

        Document view = views(mongo).find(eq("_id", "acme:revenue")).first();
        assertThat(view).doesNotContainKey("sourceFields");
        assertThat(view.getList("pipeline", Document.class).get(0).toJson()).contains("\"$gt\": 1");
    }

    @Test
    void everyShippedViewIsAValidViewForTheEngine(TestMongo mongo) throws Exception {
        installer(mongo, new ViewTemplates()).install("acme");
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

    @Test
    void templatesWithADuplicateNameOrWithoutATargetAreRefusedByName() {
        assertThatThrownBy(() -> templates("""
                [{"name": "a", "collections": ["orders"], "pipeline": [], "targetCollection": "t"},
                 {"name": "a", "collections": ["orders"], "pipeline": [], "targetCollection": "u"}]
                """)).hasMessageContaining("view template 'a' appears twice");
        assertThatThrownBy(() -> templates("""
                [{"name": "b", "collections": ["orders"], "pipeline": []}]
                """)).hasMessageContaining("view template 'b' needs a non-empty text in 'targetCollection'");
    }

    private static ViewDefinition byId(List<ViewDefinition> definitions, String id) {
        return definitions.stream().filter(view -> view.key().id().equals(id)).findFirst().orElseThrow();
    }

    private static ViewTemplates templates(String json) {
        return new ViewTemplates(new ByteArrayResource(json.getBytes(StandardCharsets.UTF_8)));
    }

    private static ViewInstaller installer(TestMongo mongo, ViewTemplates templates) {
        return new ViewInstaller(new MongoTemplate(mongo.client(), mongo.database().getName()), FIELDS, templates);
    }

    private static MongoCollection<Document> views(TestMongo mongo) {
        return mongo.database().getCollection("_aggregations");
    }
}
