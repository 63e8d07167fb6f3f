package dev.materializer.benchmarks.cost;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Updates;
import dev.materializer.core.MaterializerOptions;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * One situation whose cost per change the report measures: the source documents it loads, the views
 * it declares (as an application does: view documents in the views collection), and the one change
 * it makes per repeat. Every source document is {@code {_id: <int>, _part, customer, amount, status}}
 * in the collection {@code orders}, created without {@code changeStreamPreAndPostImages}.
 */
abstract class Scenario {

    static final String ORDERS = "orders";

    /** The partition every change is made in. */
    static final String ACME = "acme";

    /** A second partition, where one is needed to see what a change of acme reaches. */
    static final String GLOBEX = "globex";

    /** Source documents of globex start here, so ids never clash with acme's. */
    static final int GLOBEX_IDS = 100_000_000;

    static final String PER_DOCUMENT = "[{\"$match\": {\"status\": \"open\"}},"
            + " {\"$project\": {\"customer\": 1, \"amount\": 1, \"status\": 1}}]";

    static final String PER_DOCUMENT_FIELDS = "[\"status\", \"customer\", \"amount\"]";

    static final String GROUP_BY = "[{\"$group\": {\"_id\": \"$customer\", \"amount\": {\"$sum\": \"$amount\"},"
            + " \"orders\": {\"$sum\": 1}}}]";

    static final String SUMMARY = "[{\"$group\": {\"_id\": \"all\", \"rows\": {\"$sum\": 1},"
            + " \"amount\": {\"$sum\": \"$amount\"}}}]";

    /**
     * A view document.
     * @param id the view's {@code _id}
     * @param partition its partition
     * @param source the collection its pipeline runs on (its only collection)
     * @param target its target collection
     * @param pipeline the pipeline, as JSON
     * @param sourceFields the fields it reads of its source, as a JSON array, or null for all
     */
    record View(String id, String partition, String source, String target, String pipeline,
            @Nullable String sourceFields) {

        Document document(String partitionField) {
            Document view = new Document("_id", id).append(partitionField, partition)
                .append("collections", List.of(source))
                .append("pipeline", Document.parse("{\"p\": " + pipeline + "}").getList("p", Document.class))
                .append("targetCollection", target);
            if (sourceFields != null) {
                view.append("sourceFields", Document.parse("{\"" + source + "\": " + sourceFields + "}"));
            }
            return view;
        }

        String key() {
            return partition + ":" + id;
        }
    }

    /** A short name, for the progress and the tables. */
    abstract String name();

    /** What is changed, in words. */
    abstract String change();

    /** The views, in the order they are declared. */
    abstract List<View> views();

    /** The rows of the result the change is made in (the largest view of acme, before the change). */
    abstract int resultRows();

    /** Writes the source documents. */
    abstract void load(MongoDatabase database);

    /** Makes the repeat-th change: one write of one source document of acme. */
    abstract void change(MongoDatabase database, int repeat);

    /** The target collections of the views. */
    final Set<String> targets() {
        Set<String> targets = new LinkedHashSet<>();
        views().forEach(view -> targets.add(view.target()));
        return targets;
    }

    /** The collections the views' pipelines read. */
    final Set<String> sources() {
        Set<String> sources = new LinkedHashSet<>();
        views().forEach(view -> sources.add(view.source()));
        return sources;
    }

    /** The collection the change is made in. */
    String changed() {
        return ORDERS;
    }

    /** How many changes one repeat makes: a measurement waits until the engine heard them all. */
    int changesPerRepeat() {
        return 1;
    }

    /**
     * How many views one repeat must flip to a new generation before the engine counts as done with
     * it (0: none is required; the engine is done when it is quiet).
     */
    int viewsToFlip() {
        return 0;
    }

    /** Inserts {@code count} orders of a partition, ids from {@code firstId}, in {@code groups} customers. */
    static void insertOrders(MongoDatabase database, String partition, int firstId, int count, int groups) {
        MongoCollection<Document> orders = database.getCollection(ORDERS);
        List<Document> batch = new ArrayList<>(10_000);
        for (int index = 0; index < count; index++) {
            batch.add(new Document("_id", firstId + index).append(MaterializerOptions.DEFAULT_PARTITION_FIELD, partition)
                .append("customer", String.format("c-%04d", index % groups))
                .append("amount", 1 + index % 100)
                .append("status", "open"));
            if (batch.size() == 10_000) {
                orders.insertMany(batch);
                batch = new ArrayList<>(10_000);
            }
        }
        if (!batch.isEmpty()) {
            orders.insertMany(batch);
        }
    }

    /** The id of the order of acme that the repeat-th change writes: spread over the rows, never twice the same. */
    static int changedId(int rows, int repeat) {
        return (int) ((17L + repeat * 7_919L) % rows);
    }

    static void updateAmount(MongoDatabase database, int id) {
        database.getCollection(ORDERS).updateOne(Filters.eq("_id", id), Updates.inc("amount", 1));
    }

    /** A per-document view ($match and $project, one row per source document) of acme. */
    static final class PerDocument extends Scenario {

        private final int rows;

        PerDocument(int rows) {
            this.rows = rows;
        }

        @Override
        String name() {
            return String.format("per-document view, %,d rows", rows);
        }

        @Override
        String change() {
            return "the amount of one order ($inc), a field the view shows";
        }

        @Override
        List<View> views() {
            return List.of(new View("acme:orders", ACME, ORDERS, "order_rows", PER_DOCUMENT, PER_DOCUMENT_FIELDS));
        }

        @Override
        int resultRows() {
            return rows;
        }

        @Override
        void load(MongoDatabase database) {
            insertOrders(database, ACME, 0, rows, 1000);
        }

        @Override
        void change(MongoDatabase database, int repeat) {
            updateAmount(database, changedId(rows, repeat));
        }
    }

    /**
     * A group-by view ($group by customer, $sum) over the orders of acme. The change is an update of
     * one order's amount, or the insert of one order into an existing group. The insert stood for the
     * update while the plain server's update events carried no update description (no engine could
     * tell an update's old group from them); on the test server, as on MongoDB, the two read the same.
     */
    static class GroupBy extends Scenario {

        private final int documents;

        private final int groups;

        private final boolean insert;

        GroupBy(int documents) {
            this(documents, false);
        }

        GroupBy(int documents, boolean insert) {
            this.documents = documents;
            this.groups = Math.min(1000, documents);
            this.insert = insert;
        }

        @Override
        String name() {
            return String.format("group-by view, %,d docs in %,d groups%s", documents, groups,
                    insert ? ", an insert" : "");
        }

        @Override
        String change() {
            return insert ? "the insert of one order of an existing customer" : "the amount of one order ($inc)";
        }

        @Override
        List<View> views() {
            return List.of(new View("acme:by-customer", ACME, ORDERS, "amount_by_customer", GROUP_BY,
                    "[\"customer\", \"amount\"]"));
        }

        @Override
        int resultRows() {
            return groups;
        }

        int documentsPerGroup() {
            return documents / groups;
        }

        @Override
        void load(MongoDatabase database) {
            insertOrders(database, ACME, 0, documents, groups);
        }

        @Override
        void change(MongoDatabase database, int repeat) {
            if (insert) {
                int id = documents + repeat;
                database.getCollection(ORDERS).insertOne(new Document("_id", id)
                    .append(MaterializerOptions.DEFAULT_PARTITION_FIELD, ACME)
                    .append("customer", String.format("c-%04d", changedId(groups, repeat)))
                    .append("amount", 5).append("status", "open"));
            }
            else {
                updateAmount(database, changedId(documents, repeat));
            }
        }
    }

    /**
     * A scenario over the orders of two partitions: {@code rows} of acme (where the change is made)
     * and {@code otherRows} of globex, to show what a change of acme reaches.
     */
    abstract static class TwoPartitions extends Scenario {

        final int rows;

        private final int otherRows;

        TwoPartitions(int rows, int otherRows) {
            this.rows = rows;
            this.otherRows = otherRows;
        }

        @Override
        int resultRows() {
            return rows;
        }

        @Override
        void load(MongoDatabase database) {
            insertOrders(database, ACME, 0, rows, 1000);
            insertOrders(database, GLOBEX, GLOBEX_IDS, otherRows, 1000);
        }
    }

    /**
     * A view over a view, in two partitions: in each, A (per-document, over the orders) and B (a
     * summary of A's rows, over A's target); both partitions' A share one target, and both B
     * another, as tenants of one application do. The change is made in acme; globex shows what
     * reaches another partition.
     */
    static final class ViewOverView extends TwoPartitions {

        static final String A_TARGET = "order_rows";

        ViewOverView(int rows, int otherRows) {
            super(rows, otherRows);
        }

        @Override
        String name() {
            return String.format("view over a view, A %,d rows", rows);
        }

        @Override
        String change() {
            return "the amount of one order of acme ($inc), read by A";
        }

        @Override
        List<View> views() {
            List<View> views = new ArrayList<>();
            for (String partition : List.of(ACME, GLOBEX)) {
                views.add(new View(partition + ":A", partition, ORDERS, A_TARGET, PER_DOCUMENT, PER_DOCUMENT_FIELDS));
                views.add(new View(partition + ":B", partition, A_TARGET, "order_summary", SUMMARY, null));
            }
            return views;
        }

        @Override
        void change(MongoDatabase database, int repeat) {
            updateAmount(database, changedId(rows, repeat));
        }
    }

    /**
     * A delete without a pre-image: the orders collection has no {@code changeStreamPreAndPostImages}
     * (nor could the in-process server give one), so the delete event carries only the id. Acme has a
     * per-document view; globex one over the same source and target, to show what the delete reaches.
     */
    static final class DeleteWithoutPreImage extends TwoPartitions {

        DeleteWithoutPreImage(int rows, int otherRows) {
            super(rows, otherRows);
        }

        @Override
        String name() {
            return String.format("delete without a pre-image, %,d rows", rows);
        }

        @Override
        String change() {
            return "deleteOne of one order of acme, the collection without pre-images";
        }

        @Override
        List<View> views() {
            return List.of(new View("acme:orders", ACME, ORDERS, "order_rows", PER_DOCUMENT, PER_DOCUMENT_FIELDS),
                    new View("globex:orders", GLOBEX, ORDERS, "order_rows", PER_DOCUMENT, PER_DOCUMENT_FIELDS));
        }

        @Override
        void change(MongoDatabase database, int repeat) {
            database.getCollection(ORDERS).deleteOne(Filters.eq("_id", changedId(rows, repeat)));
        }
    }

    /**
     * A delete without a pre-image over many tenants that share one per-document definition and one
     * target, as a multi-tenant application has them: acme and {@code tenants - 1} others, each with a
     * few orders. The change deletes one order of acme; the event names no partition.
     */
    static final class DeleteAcrossTenants extends Scenario {

        static final int ROWS_PER_TENANT = 10;

        final int tenants;

        DeleteAcrossTenants(int tenants) {
            this.tenants = tenants;
        }

        @Override
        String name() {
            return String.format("delete without a pre-image, %,d tenants", tenants);
        }

        @Override
        String change() {
            return "deleteOne of one order of acme; every tenant has a per-document view over orders into one target";
        }

        @Override
        List<View> views() {
            List<View> views = new ArrayList<>();
            for (int tenant = 0; tenant < tenants; tenant++) {
                String partition = partition(tenant);
                views.add(new View(partition + ":orders", partition, ORDERS, "order_rows", PER_DOCUMENT,
                        PER_DOCUMENT_FIELDS));
            }
            return views;
        }

        @Override
        int resultRows() {
            return ROWS_PER_TENANT;
        }

        @Override
        void load(MongoDatabase database) {
            for (int tenant = 0; tenant < tenants; tenant++) {
                insertOrders(database, partition(tenant), tenant * 1_000, ROWS_PER_TENANT, 5);
            }
        }

        @Override
        void change(MongoDatabase database, int repeat) {
            database.getCollection(ORDERS).deleteOne(Filters.eq("_id", changedId(ROWS_PER_TENANT, repeat)));
        }

        /**
         * The deleted order is acme's: its view must flip before the engine counts as done. Without
         * it the window could end while the stream still narrows the delete (the engine hears an
         * event before it routes it), and the pass land in the next repeat's window.
         */
        @Override
        int viewsToFlip() {
            return 1;
        }

        private static String partition(int tenant) {
            return tenant == 0 ? ACME : String.format("t%04d", tenant);
        }
    }

    /**
     * A burst across tenants: {@code tenants} tenants share one group-by definition ($group by
     * customer, two $sums) and one target, each with {@link #CUSTOMERS} customers of
     * {@link #ORDERS_PER_CUSTOMER} orders. The change is ONE {@code insertMany} of one order per
     * tenant, of an existing customer; every tenant's view must flip to a new generation.
     */
    static final class BurstAcrossTenants extends Scenario {

        static final String TARGET = "amount_by_customer";

        static final int CUSTOMERS = 3;

        static final int ORDERS_PER_CUSTOMER = 2;

        /** Ids of a tenant's orders start at tenant × this; its loaded orders are the first few, its burst orders after. */
        private static final int IDS_PER_TENANT = 1_000;

        private static final int FIRST_BURST_ID = 100;

        final int tenants;

        BurstAcrossTenants(int tenants) {
            this.tenants = tenants;
        }

        @Override
        String name() {
            return String.format("a burst of one insert in each of %,d tenants", tenants);
        }

        @Override
        String change() {
            return "one insertMany of one order per tenant (an existing customer); every tenant has the same group-by"
                    + " view over orders into one target";
        }

        @Override
        List<View> views() {
            List<View> views = new ArrayList<>(tenants);
            for (int tenant = 0; tenant < tenants; tenant++) {
                String partition = partition(tenant);
                views.add(new View(partition + ":by-customer", partition, ORDERS, TARGET, GROUP_BY,
                        "[\"customer\", \"amount\"]"));
            }
            return views;
        }

        @Override
        int resultRows() {
            return CUSTOMERS;
        }

        @Override
        int changesPerRepeat() {
            return tenants;
        }

        @Override
        int viewsToFlip() {
            return tenants;
        }

        @Override
        void load(MongoDatabase database) {
            MongoCollection<Document> orders = database.getCollection(ORDERS);
            // The index on the partition field that a deployment of many tenants has (docs/operations.md,
            // "Indexes"; the engine makes none on sources): each view's pipeline, and each batch's $or of
            // partitions, leads with an equality on the partition.
            orders.createIndex(Indexes.ascending(MaterializerOptions.DEFAULT_PARTITION_FIELD));
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

        @Override
        void change(MongoDatabase database, int repeat) {
            List<Document> burst = new ArrayList<>(tenants);
            for (int tenant = 0; tenant < tenants; tenant++) {
                burst.add(order(tenant, tenant * IDS_PER_TENANT + FIRST_BURST_ID + repeat, repeat % CUSTOMERS, 5));
            }
            database.getCollection(ORDERS).insertMany(burst);
        }

        private static Document order(int tenant, int id, int customer, int amount) {
            return new Document("_id", id).append(MaterializerOptions.DEFAULT_PARTITION_FIELD, partition(tenant))
                .append("customer", String.format("c-%04d", customer))
                .append("amount", amount)
                .append("status", "open");
        }

        private static String partition(int tenant) {
            return String.format("t%05d", tenant);
        }
    }
}
