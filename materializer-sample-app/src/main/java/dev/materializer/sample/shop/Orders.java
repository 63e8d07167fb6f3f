package dev.materializer.sample.shop;

import java.util.List;

import com.mongodb.client.result.DeleteResult;
import dev.materializer.sample.MaterializerFields;
import dev.materializer.sample.NotFoundException;
import org.bson.Document;
import org.bson.types.ObjectId;

import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Service;

import static org.springframework.data.mongodb.core.query.Criteria.where;

/**
 * The orders of the tenants, in the collection {@value #COLLECTION}, each in its tenant's
 * partition. Every write here is a change the materializer sees and follows in the views.
 * Thread-safe.
 */
@Service
public class Orders {

    /** The collection of orders. */
    public static final String COLLECTION = "orders";

    private final MongoTemplate mongo;

    private final MaterializerFields fields;

    private final Tenants tenants;

    Orders(MongoTemplate mongo, MaterializerFields fields, Tenants tenants) {
        this.mongo = mongo;
        this.fields = fields;
        this.tenants = tenants;
    }

    /**
     * Creates an order.
     * @param tenant an installed tenant
     * @param input the order
     * @return the stored order, with its id
     */
    public Order create(String tenant, OrderInput input) {
        this.tenants.requireInstalled(tenant);
        Document order = Order.document(new ObjectId(), tenant, input.checked(), this.fields.partitionField());
        return Order.from(this.mongo.insert(order, COLLECTION), this.fields.partitionField());
    }

    /**
     * The latest orders of a tenant.
     * @param tenant a tenant
     * @param limit the most orders to return
     * @return the orders, newest first
     */
    public List<Order> latest(String tenant, int limit) {
        Query query = Query.query(where(this.fields.partitionField()).is(tenant))
            .with(Sort.by(Sort.Direction.DESC, "_id"))
            .limit(limit);
        return this.mongo.find(query, Document.class, COLLECTION).stream()
            .map(order -> Order.from(order, this.fields.partitionField()))
            .toList();
    }

    /**
     * One order.
     * @param tenant the tenant
     * @param id the order's id
     * @return the order
     * @throws NotFoundException when the tenant has no such order
     */
    public Order get(String tenant, String id) {
        Document order = this.mongo.findOne(byId(tenant, id), Document.class, COLLECTION);
        if (order == null) {
            throw notFound(tenant, id);
        }
        return Order.from(order, this.fields.partitionField());
    }

    /**
     * Replaces an order.
     * @param tenant the tenant
     * @param id the order's id
     * @param input the new order
     * @return the stored order
     * @throws NotFoundException when the tenant has no such order
     */
    public Order replace(String tenant, String id, OrderInput input) {
        Query query = byId(tenant, id);
        Document replacement = Order.document(new ObjectId(id), tenant, input.checked(), this.fields.partitionField());
        // A plain replace, not findAndModify: the in-process test server logs no change event for the latter.
        if (this.mongo.replace(query, replacement, COLLECTION).getMatchedCount() == 0) {
            throw notFound(tenant, id);
        }
        return Order.from(replacement, this.fields.partitionField());
    }

    /**
     * Deletes an order.
     * @param tenant the tenant
     * @param id the order's id
     * @throws NotFoundException when the tenant has no such order
     */
    public void delete(String tenant, String id) {
        DeleteResult result = this.mongo.remove(byId(tenant, id), COLLECTION);
        if (result.getDeletedCount() == 0) {
            throw notFound(tenant, id);
        }
    }

    private Query byId(String tenant, String id) {
        if (!ObjectId.isValid(id)) {
            throw notFound(tenant, id);
        }
        return Query.query(where("_id").is(new ObjectId(id)).and(this.fields.partitionField()).is(tenant));
    }

    private static NotFoundException notFound(String tenant, String id) {
        return new NotFoundException("tenant '" + tenant + "' has no order '" + id + "'");
    }
}
