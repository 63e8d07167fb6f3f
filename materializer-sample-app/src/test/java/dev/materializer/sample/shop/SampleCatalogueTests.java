package dev.materializer.sample.shop;

import dev.materializer.sample.MaterializerFields;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.junit.jupiter.api.Test;

import org.springframework.data.mongodb.core.MongoTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The starting catalogue is seeded once per tenant and never overwrites a product's edits. */
@MongoTest(MongoKind.IN_PROCESS)
class SampleCatalogueTests {

    @Test
    void seedingAgainKeepsEditedProductsAndAddsNothingTwice(TestMongo mongo) {
        Catalogue catalogue = new Catalogue(new MongoTemplate(mongo.client(), mongo.database().getName()),
                new MaterializerFields("_part", "_materializerStatus", "_aggregations"));
        catalogue.seed("acme");
        catalogue.put("acme", new Product("widget", "Widget", "gadgets"));

        catalogue.seed("acme");
        catalogue.seed("globex");

        assertThat(catalogue.products("acme")).hasSize(5).contains(new Product("widget", "Widget", "gadgets"));
        assertThat(catalogue.products("globex")).contains(new Product("widget", "Widget", "tools"));
        assertThat(mongo.database().getCollection("products").countDocuments()).isEqualTo(10);
    }
}
