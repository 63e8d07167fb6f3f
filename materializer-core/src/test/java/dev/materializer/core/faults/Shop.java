package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.UpdateResult;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The sources and views of a fault scenario: a shop of a few tenants with orders and customers,
 * four views per tenant (revenue by product, quantity by customer through a {@code $lookup}, orders
 * by status, and the top products read from the revenue view's target), and seeded random writes
 * to them. Every choice comes from the scenario's {@link SplittableRandom}, so a seed replays the
 * same writes; each write method says how many change events it made, for waits on counts.
 *
 * <p>Only pipelines the in-process test server runs: no {@code $unionWith}, the {@code $lookup} in
 * its {@code let}/{@code pipeline} form. Order-free accumulators only, so two runs over the same
 * documents give the same rows.
 *
 * <p>Not thread-safe: the scenario's thread writes.
 */
final class Shop {

    static final String ORDERS = "orders";

    static final String CUSTOMERS = "customers";

    static final String PARTITION = "_part";

    /** Given as the partition of {@link #insertOrder(Object, String)}: the order has no partition field. */
    static final Object NO_PARTITION = new Object();

    private static final String[] PRODUCTS = {"apple", "pear", "fig", "plum", "kiwi"};

    private static final String[] STATUSES = {"new", "paid", "shipped"};

    private static final String[] REGIONS = {"north", "south", "east"};

    private static final String REVENUE = "{$group: {_id: '$product', revenue: {$sum: {$multiply: ['$quantity', '$price']}},"
            + " orders: {$sum: 1}}}";

    private static final String LOOKUP = "{$lookup: {from: 'customers', let: {c: '$customer'},"
            + " pipeline: [{$match: {$expr: {$eq: ['$_id', '$$c']}}}], as: 'who'}}";

    private static final String BY_CUSTOMER = "{$group: {_id: '$customer', quantity: {$sum: '$quantity'},"
            + " region: {$max: '$who.region'}}}";

    private final MongoDatabase db;

    private final SplittableRandom random;

    private final List<String> tenants;

    private final List<String> orders = new ArrayList<>();

    private final List<String> customers = new ArrayList<>();

    private final String viewsCollection;

    private int nextOrder;

    private long written;

    private int nextCustomer;

    Shop(MongoDatabase db, SplittableRandom random, int tenants, String viewsCollection) {
        this.db = db;
        this.random = random;
        this.viewsCollection = viewsCollection;
        List<String> names = new ArrayList<>();
        for (int t = 0; t < tenants; t++) {
            names.add("t" + t);
        }
        this.tenants = List.copyOf(names);
    }

    List<String> tenants() {
        return tenants;
    }

    /** A few customers and orders in every tenant, before any engine runs. */
    void seedData() {
        for (String tenant : tenants) {
            for (int c = 0; c < 3; c++) {
                insertCustomer(tenant);
            }
            for (int o = 0; o < 5; o++) {
                insertOrder(tenant);
            }
        }
    }

    /** The four views of every tenant. */
    void defineViews() {
        for (String tenant : tenants) {
            defineViews(tenant);
        }
    }

    private void defineViews(String tenant) {
        defineView("rev-" + tenant, tenant, List.of(ORDERS), "revenue", REVENUE);
        defineView("cust-" + tenant, tenant, List.of(ORDERS, CUSTOMERS), "byCustomer", LOOKUP,
                "{$unwind: {path: '$who', preserveNullAndEmptyArrays: true}}", BY_CUSTOMER);
        defineView("status-" + tenant, tenant, List.of(ORDERS), "byStatus", "{$group: {_id: '$status', n: {$sum: 1}}}");
        // A row of another view's target has the stored _id {partition, generation, id}: re-key by its id.
        defineView("top-" + tenant, tenant, List.of("revenue"), "top", "{$project: {_id: '$_id.id', revenue: 1}}",
                "{$sort: {revenue: -1, _id: 1}}", "{$limit: 2}");
    }

    /** The names the convergence checker gives the views of {@link #defineViews()}. */
    Set<String> viewNames() {
        Set<String> names = new LinkedHashSet<>();
        for (String tenant : tenants) {
            for (String view : List.of("rev-", "cust-", "status-", "top-")) {
                names.add(tenant + "/" + view + tenant);
            }
        }
        return names;
    }

    void defineView(Object id, String tenant, List<String> sources, String target, String... stages) {
        views().insertOne(view(id, tenant, sources, target, stages));
    }

    static Document view(Object id, String tenant, List<String> sources, String target, String... stages) {
        List<Document> pipeline = new ArrayList<>();
        for (String stage : stages) {
            pipeline.add(Document.parse(stage));
        }
        return new Document("_id", id).append(PARTITION, tenant).append("collections", sources)
            .append("pipeline", pipeline).append("targetCollection", target);
    }

    MongoCollection<Document> views() {
        return db.getCollection(viewsCollection);
    }

    /**
     * Random writes across the tenants: inserts, updates (fields the views read and fields they do
     * not), moves of orders between tenants, deletes; of orders and of customers.
     * @param count how many writes
     * @return how many change events they made
     */
    int writes(int count) {
        int events = 0;
        for (int i = 0; i < count; i++) {
            events += write();
        }
        return events;
    }

    private int write() {
        int roll = random.nextInt(100);
        if (roll < 30 || orders.isEmpty()) {
            insertOrder(tenant());
            return 1;
        }
        if (roll < 60) {
            return updateOrder();
        }
        if (roll < 66) {
            return moveOrder();
        }
        if (roll < 78) {
            return deleteOrder(pick(orders));
        }
        if (roll < 84 || customers.isEmpty()) {
            insertCustomer(tenant());
            return 1;
        }
        if (roll < 94) {
            return updated(db.getCollection(CUSTOMERS).updateOne(Filters.eq("_id", pick(customers)),
                    Updates.set("region", pick(REGIONS))));
        }
        return deleted(db.getCollection(CUSTOMERS).deleteOne(Filters.eq("_id", take(customers))));
    }

    /**
     * Writes that reach one tenant only: inserts of its orders and customers. Any update or delete
     * reaches every tenant on a server without pre-images and update descriptions (the router
     * cannot tell their tenant), and a later pass of a tenant repairs whatever an earlier fault
     * lost there; so writes after a fault stay in one tenant, and what the fault did to the others
     * stays in sight.
     * @param count how many writes
     * @return the tenant written, and how many change events
     */
    OneTenant insertsIntoOneTenant(int count) {
        return insertsInto(tenant(), count);
    }

    /** As {@link #insertsIntoOneTenant(int)}, into the tenant given. */
    OneTenant insertsInto(String tenant, int count) {
        for (int i = 0; i < count; i++) {
            if (random.nextInt(4) == 0) {
                insertCustomer(tenant);
            }
            else {
                insertOrder(tenant);
            }
        }
        return new OneTenant(tenant, count);
    }

    /** Writes into one tenant: which, and how many change events. */
    record OneTenant(String tenant, int events) {

        @Override
        public String toString() {
            return events + " insert(s) into " + tenant;
        }
    }

    /** An update of a field a view reads, or of one none reads (the note). */
    private int updateOrder() {
        String id = pick(orders);
        Bson update = switch (random.nextInt(6)) {
            case 0 -> Updates.inc("quantity", 1 + random.nextInt(3));
            case 1 -> Updates.set("price", 1 + random.nextInt(20));
            case 2 -> Updates.set("status", pick(STATUSES));
            case 3 -> Updates.set("product", pick(PRODUCTS));
            case 4 -> Updates.set("customer", customerOf(tenantOf(id)));
            default -> Updates.inc("note", 1);
        };
        return updateOrder(id, update);
    }

    /** An order changes tenant, with a customer of its new tenant. */
    private int moveOrder() {
        String tenant = tenant();
        return updateOrder(pick(orders), Updates.combine(Updates.set(PARTITION, tenant),
                Updates.set("customer", customerOf(tenant))));
    }

    String insertOrder(String tenant) {
        return insertOrder(tenant, customerOf(tenant));
    }

    /** An order whose partition field holds any value, a tenant's name or an odd one. */
    String insertOrder(Object partition, String customer) {
        String id = "o" + nextOrder++;
        Document order = new Document("_id", id);
        if (partition != NO_PARTITION) {
            order.append(PARTITION, partition);
        }
        written++;
        // code: unique per order, read by no view of the shop, so a projected stream does not keep it.
        db.getCollection(ORDERS).insertOne(order
            .append("product", pick(PRODUCTS)).append("quantity", 1 + random.nextInt(5))
            .append("price", 1 + random.nextInt(20)).append("status", pick(STATUSES))
            .append("customer", customer).append("code", "c-" + id));
        orders.add(id);
        return id;
    }

    void insertCustomer(String tenant) {
        String id = tenant + "-c" + nextCustomer++;
        written++;
        db.getCollection(CUSTOMERS).insertOne(new Document("_id", id).append(PARTITION, tenant)
            .append("region", pick(REGIONS)).append("name", "customer " + id));
        customers.add(id);
    }

    /** A customer id of the tenant, existing or not: deleted customers stay referenced, as in life. */
    private String customerOf(String tenant) {
        return tenant + "-c" + random.nextInt(Math.max(1, nextCustomer));
    }

    private String tenantOf(String orderId) {
        Document order = db.getCollection(ORDERS).find(Filters.eq("_id", orderId)).first();
        Object tenant = order == null ? null : order.get(PARTITION);
        return tenant instanceof String text ? text : tenant();
    }

    String tenant() {
        return tenants.get(random.nextInt(tenants.size()));
    }

    /** An existing order id, for scenarios that write odd documents of their own. */
    String anyOrder() {
        return pick(orders);
    }

    <T> T pick(List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    private String pick(String[] from) {
        return from[random.nextInt(from.length)];
    }

    private String take(List<String> from) {
        return from.remove(random.nextInt(from.size()));
    }

    /** Updates an order by id; how many change events it made. */
    int updateOrder(String id, Bson update) {
        return updated(db.getCollection(ORDERS).updateOne(Filters.eq("_id", id), update));
    }

    /** Deletes an order by id; how many change events it made. */
    int deleteOrder(String id) {
        orders.remove(id);
        return deleted(db.getCollection(ORDERS).deleteOne(Filters.eq("_id", id)));
    }

    /** Inserts a document a scenario made itself into a collection, counted as one change event. */
    void insert(String collection, Document document) {
        written++;
        db.getCollection(collection).insertOne(document);
    }

    /** Updates the first document of a collection that matches; how many change events it made. */
    int update(String collection, Bson filter, Bson update) {
        return updated(db.getCollection(collection).updateOne(filter, update));
    }

    /** Deletes the first document of a collection that matches; how many change events it made. */
    int delete(String collection, Bson filter) {
        return deleted(db.getCollection(collection).deleteOne(filter));
    }

    /** The names the convergence checker gives the views of {@link #defineViews()}, but for the ones given. */
    Set<String> viewNamesBut(String... names) {
        Set<String> left = viewNames();
        for (String name : names) {
            left.remove(name);
        }
        return left;
    }

    /** How many change events the writes of this shop made so far. */
    long eventsWritten() {
        return written;
    }

    private int updated(UpdateResult result) {
        written += result.getModifiedCount();
        return (int) result.getModifiedCount();
    }

    private int deleted(DeleteResult result) {
        written += result.getDeletedCount();
        return (int) result.getDeletedCount();
    }
}
