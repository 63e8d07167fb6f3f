package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.MaterializerOptions;
import org.bson.Document;

/**
 * The data of the rolling restart: {@code tenants} tenants, each with three views of three
 * definitions over {@code orders} (a group-by of the customers, a per-document projection, a summary
 * of all its orders), one target per definition shared by every tenant, and
 * {@link #CUSTOMERS} × {@link #ORDERS_PER_CUSTOMER} orders per tenant; and the writes a step makes
 * while an instance is down: one order in each of a few tenants.
 *
 * <p>Immutable; its methods write through the database they are given, on the caller's thread.
 */
final class RollingRestart {

    /** The views of each tenant, by the suffix of their id. */
    enum Definition {

        /** $group by customer, two $sums (the burst's definition). */
        BY_CUSTOMER("by-customer", "amount_by_customer", Scenario.GROUP_BY, "[\"customer\", \"amount\"]"),

        /** $match and $project: one row per open order. */
        ROWS("rows", "order_rows", Scenario.PER_DOCUMENT, Scenario.PER_DOCUMENT_FIELDS),

        /** One $group of all the tenant's orders: a count and a sum. */
        SUMMARY("summary", "order_summary", Scenario.SUMMARY, "[\"amount\"]");

        final String suffix;

        final String target;

        final String pipeline;

        final String sourceFields;

        Definition(String suffix, String target, String pipeline, String sourceFields) {
            this.suffix = suffix;
            this.target = target;
            this.pipeline = pipeline;
            this.sourceFields = sourceFields;
        }

        /** The definition of a view id ("t00001:rows" is ROWS). */
        static Definition of(String viewId) {
            for (Definition definition : values()) {
                if (viewId.endsWith(":" + definition.suffix)) {
                    return definition;
                }
            }
            throw new IllegalArgumentException("not a view of the rolling restart: " + viewId);
        }
    }

    static final int CUSTOMERS = 3;

    static final int ORDERS_PER_CUSTOMER = 2;

    /** Tenants written to while an instance is down, per step of the variant with writes. */
    static final int WRITES_PER_STEP = 10;

    /** Ids of a tenant's orders start at tenant × this; its loaded orders come first, its written ones from {@link #FIRST_WRITTEN_ID}. */
    private static final int IDS_PER_TENANT = 1_000;

    private static final int FIRST_WRITTEN_ID = 100;

    final int tenants;

    RollingRestart(int tenants) {
        this.tenants = tenants;
    }

    String name() {
        return String.format("a rolling restart of 3 instances over %,d tenants × 3 views", tenants);
    }

    /** Every view, tenant by tenant. */
    List<Scenario.View> views() {
        List<Scenario.View> views = new ArrayList<>(tenants * Definition.values().length);
        for (int tenant = 0; tenant < tenants; tenant++) {
            String partition = partition(tenant);
            for (Definition definition : Definition.values()) {
                views.add(new Scenario.View(partition + ":" + definition.suffix, partition, Scenario.ORDERS,
                        definition.target, definition.pipeline, definition.sourceFields));
            }
        }
        return views;
    }

    /** Writes every tenant's orders. */
    void load(MongoDatabase database) {
        MongoCollection<Document> orders = database.getCollection(Scenario.ORDERS);
        List<Document> batch = new ArrayList<>(10_000);
        for (int tenant = 0; tenant < tenants; tenant++) {
            for (int index = 0; index < CUSTOMERS * ORDERS_PER_CUSTOMER; index++) {
                batch.add(order(tenant, tenant * IDS_PER_TENANT + index, index % CUSTOMERS, 1 + index));
            }
            if (batch.size() >= 10_000) {
                orders.insertMany(batch);
                batch = new ArrayList<>(10_000);
            }
        }
        if (!batch.isEmpty()) {
            orders.insertMany(batch);
        }
    }

    /**
     * Inserts one order, of an existing customer, in each of the tenants (one {@code insertMany}); the
     * {@code write}-th write of the run, so ids never repeat.
     */
    void write(MongoDatabase database, List<String> partitions, int write) {
        List<Document> orders = new ArrayList<>(partitions.size());
        for (String partition : partitions) {
            int tenant = tenantOf(partition);
            orders.add(order(tenant, tenant * IDS_PER_TENANT + FIRST_WRITTEN_ID + write, write % CUSTOMERS, 5));
        }
        database.getCollection(Scenario.ORDERS).insertMany(orders);
    }

    /** Every tenant's partition, in order. */
    List<String> partitions() {
        List<String> partitions = new ArrayList<>(tenants);
        for (int tenant = 0; tenant < tenants; tenant++) {
            partitions.add(partition(tenant));
        }
        return partitions;
    }

    static String partition(int tenant) {
        return String.format("t%05d", tenant);
    }

    private static int tenantOf(String partition) {
        return Integer.parseInt(partition.substring(1));
    }

    private static Document order(int tenant, int id, int customer, int amount) {
        return new Document("_id", id).append(MaterializerOptions.DEFAULT_PARTITION_FIELD, partition(tenant))
            .append("customer", String.format("c-%04d", customer))
            .append("amount", amount)
            .append("status", "open");
    }
}
