package dev.materializer.benchmarks.scale;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.view.InvalidViewException;
import dev.materializer.core.view.ViewDefinitionParser;
import dev.materializer.core.ViewKey;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.write.StatusStore;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

/**
 * The views of a measurement: T tenants, each with the same K views over one source, {@code orders}
 * (K templates of pipelines and source fields, the same in every tenant, as an application defines
 * them), written as view documents whose status says they ran: {@code ok}, a generation, and the
 * fingerprint of their definition (what {@code ViewCatalog.needsRun} checks), so a start runs none
 * of them. Optionally a checkpoint of the orders stream for the instance, with a real resume token
 * of the server, so a start catches nothing up.
 */
final class Fleet {

    static final String SOURCE = "orders";

    static final String DATABASE = "scale";

    /** The instance id every engine of the report runs under: a restart of the same instance. */
    static final String INSTANCE = "scale-report";

    /** Pipelines and watched fields of the views of a tenant; the K-th view uses template K mod 5. */
    private static final String[][] TEMPLATES = {
        {"by_status", "[{$group: {_id: '$status', orders: {$sum: 1}}}]", "['status']"},
        {"revenue", "[{$group: {_id: 'total', total: {$sum: '$total'}}}]", "['total']"},
        {"by_customer", "[{$group: {_id: '$customer', total: {$sum: '$total'}}}]", "['customer', 'total']"},
        {"open_orders", "[{$match: {status: 'open'}}, {$project: {customer: 1, total: 1}}]",
            "['status', 'customer', 'total']"},
        {"all_orders", "[{$project: {status: 1, total: 1}}]", null},
    };

    final int tenants;

    final int viewsPerTenant;

    final MaterializerOptions options;

    Fleet(int tenants, int viewsPerTenant, MaterializerOptions options) {
        this.tenants = tenants;
        this.viewsPerTenant = viewsPerTenant;
        this.options = options;
    }

    int views() {
        return tenants * viewsPerTenant;
    }

    static String tenant(int index) {
        return String.format("t-%05d", index);
    }

    static String viewId(int tenant, int view) {
        return tenant(tenant) + ":v" + view;
    }

    /** The view document of one view, without status. */
    BsonDocument definition(int tenant, int view) {
        String[] template = TEMPLATES[view % TEMPLATES.length];
        BsonDocument document = new BsonDocument("_id", new BsonString(viewId(tenant, view)))
            .append(options.partitionField(), new BsonString(tenant(tenant)))
            .append("collections", new BsonArray(List.of(new BsonString(SOURCE))))
            .append("pipeline", BsonArray.parse(template[1]))
            .append("targetCollection", new BsonString(template[0] + (view < TEMPLATES.length ? "" : "_" + view)));
        if (template[2] != null) {
            document.append("sourceFields", new BsonDocument(SOURCE, BsonArray.parse(template[2])));
        }
        return document;
    }

    /** A view document for a view added live: no status, so it runs once registered. */
    BsonDocument extraView(int tenant, String id) {
        return new BsonDocument("_id", new BsonString(id))
            .append(options.partitionField(), new BsonString(tenant(tenant)))
            .append("collections", new BsonArray(List.of(new BsonString(SOURCE))))
            .append("pipeline", BsonArray.parse("[{$match: {status: 'open'}}]"))
            .append("targetCollection", new BsonString("extra_" + id.replaceAll("[^A-Za-z0-9]", "_")))
            .append("sourceFields", new BsonDocument(SOURCE, BsonArray.parse("['status']")));
    }

    static ViewKey extraKey(int tenant, String id) {
        return new ViewKey(tenant(tenant), id);
    }

    /**
     * Writes every view document, each with a status that says it ran ({@code ok}, a generation,
     * the fingerprint of its definition, write version 1).
     */
    void writeViews(MongoDatabase database) {
        MongoCollection<BsonDocument> views = database.getCollection(options.viewsCollection(), BsonDocument.class);
        ViewDefinitionParser parser = new ViewDefinitionParser(options.partitionField(), options.viewsCollection());
        String[] fingerprints = new String[viewsPerTenant];
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        List<BsonDocument> batch = new ArrayList<>();
        for (int tenant = 0; tenant < tenants; tenant++) {
            for (int view = 0; view < viewsPerTenant; view++) {
                BsonDocument document = definition(tenant, view);
                if (fingerprints[view] == null) {
                    // The fingerprint leaves out the id and the partition: one per template.
                    fingerprints[view] = fingerprint(parser, document);
                }
                BsonDocument status = new ViewStatus(ViewState.OK, null, at, Generation.of(1), null, null, 1, 1).toBson()
                    .append(StatusStore.FINGERPRINT_FIELD, new BsonString(fingerprints[view]));
                batch.add(document.append(options.statusField(), status));
                if (batch.size() == 1000) {
                    views.insertMany(batch);
                    batch = new ArrayList<>();
                }
            }
        }
        if (!batch.isEmpty()) {
            views.insertMany(batch);
        }
    }

    private static String fingerprint(ViewDefinitionParser parser, BsonDocument document) {
        try {
            return parser.parse(document).fingerprint();
        }
        catch (InvalidViewException ex) {
            throw new IllegalStateException("a template of the scale report is not a valid view: " + ex.getMessage(), ex);
        }
    }

    /**
     * A real resume token of the orders stream: opens a stream, inserts one order (of tenant 0),
     * and reads the token after its event. Needs the oplog on.
     */
    static BsonDocument resumeToken(MongoDatabase database, String partitionField) {
        MongoCollection<BsonDocument> orders = database.getCollection(SOURCE, BsonDocument.class);
        try (MongoChangeStreamCursor<ChangeStreamDocument<BsonDocument>> cursor = orders.watch().cursor()) {
            orders.insertOne(order(tenant(0), partitionField));
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < until) {
                if (cursor.tryNext() != null) {
                    BsonDocument token = cursor.getResumeToken();
                    if (token != null) {
                        return token;
                    }
                }
                Meter.sleep(20);
            }
        }
        throw new IllegalStateException("the in-process server gave no change event within 20 s");
    }

    /**
     * Writes the checkpoint of the orders stream of {@link #INSTANCE}, as {@code CheckpointStore}
     * saves it: nothing pending, the instance alone live, so it answers for every partition.
     */
    void writeCheckpoint(MongoDatabase database, BsonDocument token) {
        String id = "stream:" + SOURCE + "@" + INSTANCE;
        database.getCollection(options.checkpointsCollection(), BsonDocument.class).insertOne(
                new BsonDocument("_id", new BsonString(id))
                    .append("kind", new BsonString("stream"))
                    .append("collection", new BsonString(SOURCE))
                    .append("instance", new BsonString(INSTANCE))
                    .append("at", new BsonDateTime(System.currentTimeMillis()))
                    .append("token", token)
                    .append("pending", new BsonArray())
                    .append("live", new BsonArray(List.of(new BsonString(INSTANCE)))));
    }

    static BsonDocument order(String tenant, String partitionField) {
        return new BsonDocument("_id", new BsonObjectId(new ObjectId()))
            .append(partitionField, new BsonString(tenant))
            .append("status", new BsonString("open"))
            .append("customer", new BsonString("c-1"))
            .append("total", new BsonInt32(10));
    }

    /**
     * Synthetic events of one tenant, as the stream would hand them over: inserts, and updates of
     * the status (with the post-image, as {@code updateLookup} gives it), alternating.
     */
    static SourceChange[] events(String tenant, String partitionField, int count) {
        SourceChange[] events = new SourceChange[count];
        SourceChange.UpdatedFields status = new SourceChange.UpdatedFields(List.of("status"), List.of(), List.of());
        for (int index = 0; index < count; index++) {
            BsonDocument order = order(tenant, partitionField);
            BsonValue id = order.get("_id");
            events[index] = index % 2 == 0
                    ? new SourceChange(SourceChange.Operation.INSERT, order, null, id, null, null, null)
                    : new SourceChange(SourceChange.Operation.UPDATE, order, null, id, status, null, null);
        }
        return events;
    }

    @Override
    public String toString() {
        return tenants + "×" + viewsPerTenant + " = " + views() + " views";
    }
}
