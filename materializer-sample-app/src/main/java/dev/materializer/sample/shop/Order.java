package dev.materializer.sample.shop;

import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * An order of a tenant: who bought how many of which product at what unit price.
 *
 * @param id the hex of the order's ObjectId
 * @param tenant the tenant (stored in the partition field)
 * @param customer who bought
 * @param product the product's sku
 * @param quantity how many
 * @param price the unit price
 */
public record Order(String id, String tenant, String customer, String product, int quantity, double price) {

    static Order from(Document stored, String partitionField) {
        return new Order(stored.getObjectId("_id").toHexString(), stored.getString(partitionField),
                stored.getString("customer"), stored.getString("product"),
                ((Number) stored.get("quantity")).intValue(), ((Number) stored.get("price")).doubleValue());
    }

    static Document document(ObjectId id, String tenant, OrderInput input, String partitionField) {
        return new Document("_id", id).append(partitionField, tenant)
            .append("customer", input.customer())
            .append("product", input.product())
            .append("quantity", input.quantity())
            .append("price", input.price());
    }
}
