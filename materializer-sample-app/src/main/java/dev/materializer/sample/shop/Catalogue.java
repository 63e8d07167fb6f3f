package dev.materializer.sample.shop;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.materializer.sample.MaterializerFields;
import org.bson.Document;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Service;

import static org.springframework.data.mongodb.core.query.Criteria.where;

/**
 * The product catalogue of each tenant, in the collection {@value #COLLECTION}: the second source of
 * the view {@code revenue-by-category}, which joins it to the orders with {@code $lookup}. A
 * product's {@code _id} is {@code <tenant>:<sku>}. Thread-safe.
 */
@Service
public class Catalogue {

    /** The collection of products. */
    public static final String COLLECTION = "products";

    /** The starting catalogue of a new tenant. */
    static final String RESOURCE = "shop/catalogue.json";

    private final MongoTemplate mongo;

    private final MaterializerFields fields;

    private final List<Product> starting;

    Catalogue(MongoTemplate mongo, MaterializerFields fields) {
        this.mongo = mongo;
        this.fields = fields;
        this.starting = readStarting();
    }

    /**
     * Adds the starting products a tenant lacks; products it has keep their edits.
     * @param tenant a checked tenant name
     */
    void seed(String tenant) {
        for (Product product : this.starting) {
            Update insertOnly = new Update().setOnInsert(this.fields.partitionField(), tenant)
                .setOnInsert("sku", product.sku())
                .setOnInsert("name", product.name())
                .setOnInsert("category", product.category());
            this.mongo.upsert(byId(tenant, product.sku()), insertOnly, COLLECTION);
        }
    }

    /**
     * Creates or changes a product.
     * @param tenant a checked tenant name
     * @param product the product
     */
    void put(String tenant, Product product) {
        Update update = new Update().set(this.fields.partitionField(), tenant)
            .set("sku", product.sku())
            .set("name", product.name())
            .set("category", product.category());
        this.mongo.upsert(byId(tenant, product.sku()), update, COLLECTION);
    }

    /**
     * The products of a tenant.
     * @param tenant a checked tenant name
     * @return the products, by sku
     */
    List<Product> products(String tenant) {
        Query query = Query.query(where(this.fields.partitionField()).is(tenant)).with(Sort.by("sku"));
        return this.mongo.find(query, Document.class, COLLECTION).stream()
            .map(product -> new Product(product.getString("sku"), product.getString("name"), product.getString("category")))
            .toList();
    }

    private static Query byId(String tenant, String sku) {
        return Query.query(where("_id").is(tenant + ":" + sku));
    }

    private static List<Product> readStarting() {
        try (InputStream in = new ClassPathResource(RESOURCE).getInputStream()) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return Document.parse("{\"products\": " + json + "}").getList("products", Document.class).stream()
                .map(product -> Product.checked(product.getString("sku"), product.getString("name"),
                        product.getString("category")))
                .toList();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot read the starting catalogue " + RESOURCE, ex);
        }
    }
}
