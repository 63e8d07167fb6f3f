package dev.materializer.sample.shop;

import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.core.server.SourceIndexes;
import dev.materializer.core.server.SourceIndexes.Coverage;
import dev.materializer.sample.MaterializerFields;
import dev.materializer.testing.Capability;
import dev.materializer.testing.TestMongo;
import de.bwaldvogel.mongo.MongoServer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.data.mongodb.core.MongoTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The shop's sources exist before the engine starts, indexed by tenant, and keep pre-images wherever the server can. */
abstract class ShopCollectionsContract {

    @Test
    void theSourcesExistIndexedByTenantAndKeepPreImagesWhereTheServerCan(TestMongo mongo) {
        MongoTemplate template = new MongoTemplate(mongo.client(), mongo.database().getName());
        MaterializerFields fields = new MaterializerFields("_part", "_materializerStatus", "_aggregations");

        new ShopCollections(template, fields, noEmbeddedServer()).afterPropertiesSet();
        new ShopCollections(template, fields, noEmbeddedServer()).afterPropertiesSet();

        assertThat(template.getCollectionNames()).contains("orders", "products");
        assertThat(SourceIndexes.coverage(mongo.database(), "orders", "_part")).isEqualTo(Coverage.INDEXED);
        assertThat(SourceIndexes.coverage(mongo.database(), "products", "_part")).isEqualTo(Coverage.INDEXED);
        assertThat(CapabilityDetector.preImages(mongo.database(), "orders")).isEqualTo(mongo.has(Capability.PRE_IMAGES));
        assertThat(CapabilityDetector.preImages(mongo.database(), "products")).isEqualTo(mongo.has(Capability.PRE_IMAGES));
    }

    private static ObjectProvider<MongoServer> noEmbeddedServer() {
        return new StaticListableBeanFactory().getBeanProvider(MongoServer.class);
    }
}
