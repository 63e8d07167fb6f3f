package dev.materializer.sample.shop;

import java.util.List;

import com.mongodb.MongoException;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import de.bwaldvogel.mongo.MongoServer;
import dev.materializer.sample.MaterializerFields;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

/**
 * Prepares the shop's source collections before the materializer starts (singletons are
 * initialised before lifecycle beans start): each exists, is indexed by the tenant (every pass of a
 * tenant's views reads its orders and products by it; without the index the engine warns that each
 * pass reads the whole collection), and keeps pre-images for change streams
 * ({@code changeStreamPreAndPostImages}, MongoDB 6.0+). With pre-images a delete or a replace of an
 * order reaches only its own tenant's views; without them the engine cannot tell the tenant of a
 * deleted document and runs the views of every tenant reading the collection. A server that cannot
 * keep pre-images (such as the embedded test server) is said in the log and the shop runs on.
 */
@Component
class ShopCollections implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(ShopCollections.class);

    private static final List<String> SOURCES = List.of(Orders.COLLECTION, Catalogue.COLLECTION);

    private final MongoTemplate mongo;

    private final MaterializerFields fields;

    private final boolean embedded;

    ShopCollections(MongoTemplate mongo, MaterializerFields fields, ObjectProvider<MongoServer> embeddedServer) {
        this.mongo = mongo;
        this.fields = fields;
        this.embedded = embeddedServer.getIfAvailable() != null;
    }

    @Override
    public void afterPropertiesSet() {
        for (String collection : SOURCES) {
            create(collection);
            index(collection);
            if (this.embedded) {
                // The embedded test server refuses collMod with an ERROR in its log: do not alarm a newcomer.
                log.info("Collection {} keeps no pre-images on the embedded test server: a delete or replace there "
                        + "runs the views of every tenant", collection);
                continue;
            }
            try {
                this.mongo.executeCommand(new Document("collMod", collection)
                    .append("changeStreamPreAndPostImages", new Document("enabled", true)));
                log.info("Collection {} keeps pre-images: a delete reaches only its tenant's views", collection);
            }
            catch (MongoException | DataAccessException ex) {
                log.info("Collection {} keeps no pre-images ({}): a delete or replace there runs the views of "
                        + "every tenant", collection, ex.getMessage());
            }
        }
    }

    /** The tenant's index: making one that exists is a no-op. */
    private void index(String collection) {
        try {
            this.mongo.getCollection(collection)
                .createIndex(Indexes.ascending(this.fields.partitionField()), new IndexOptions().name("tenant"));
        }
        catch (MongoException ex) {
            log.warn("Collection {} could not be indexed by tenant ({}): every pass of its views reads all of it",
                    collection, ex.getMessage());
        }
    }

    private void create(String collection) {
        try {
            if (!this.mongo.collectionExists(collection)) {
                this.mongo.createCollection(collection);
            }
        }
        catch (MongoException | DataAccessException ex) {
            // Another instance created it in between: it exists, which is all that is needed.
            log.debug("Collection {} was not created here: {}", collection, ex.getMessage());
        }
    }
}
