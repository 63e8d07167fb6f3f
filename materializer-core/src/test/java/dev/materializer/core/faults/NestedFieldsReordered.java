package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.ViewFilter;
import org.bson.Document;

/**
 * Orders carry an embedded document, {@code shape: {x, y, z: {a, b}}}, which a per-document view of
 * every tenant outputs and a {@code $group} of every tenant takes as its key. Among the load come
 * updates that only reorder its fields, at the top of it or inside {@code z}: to MongoDB those are
 * other values (an equality match, a group key, a unique index tell them apart), so each must be
 * written, and the convergence checker, which compares field order, sees any that was not. Once the
 * views converged, one reorder comes alone, and a reader of the per-document view must see the
 * order's shape in its new order.
 */
final class NestedFieldsReordered implements FaultScenario {

    static final String SHAPES = "shapes";

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        Set<String> views = run.shop.viewNames();
        for (String tenant : run.shop.tenants()) {
            run.shop.defineView("shape-" + tenant, tenant, List.of(Shop.ORDERS), SHAPES, "{$project: {status: 1, shape: 1}}");
            run.shop.defineView("by-shape-" + tenant, tenant, List.of(Shop.ORDERS), "byShape",
                    "{$match: {shape: {$exists: true}}}", "{$group: {_id: '$shape', orders: {$sum: 1}}}");
            views.add(tenant + "/shape-" + tenant);
            views.add(tenant + "/by-shape-" + tenant);
        }
        for (int i = 0; i < 8; i++) {
            shape(run, run.shop.anyOrder());
        }
        List<Node> nodes = Lifecycle.start(run, run.random.nextBoolean() ? 2 : 1);
        run.converge("the first start", views, Set.of());

        int events = 0;
        int reorders = 0;
        for (int round = 0; round < 4; round++) {
            events += run.shop.writes(run.random.nextInt(8));
            for (int i = 0; i < 1 + run.random.nextInt(4); i++) {
                if (run.random.nextInt(4) == 0) {
                    events += shape(run, run.shop.anyOrder());
                }
                else {
                    int made = reorder(run, run.shop.anyOrder());
                    events += made;
                    reorders += made;
                }
            }
        }
        run.note(events + " change(s), " + reorders + " of them only reordering a shape");
        run.converge("updates that only reorder nested fields", views, Set.of());

        nodes.forEach(Node::awaitHeardEverything);
        String order = null;
        for (int tries = 0; tries < 20 && order == null; tries++) {
            String candidate = run.shop.anyOrder();
            if (reorder(run, candidate) > 0) {
                order = candidate;
            }
        }
        if (order == null) {
            order = run.shop.anyOrder();
            shape(run, order);
            run.converge("a shape given", views, Set.of());
            reorder(run, order);
        }
        Document source = run.db.getCollection(Shop.ORDERS).find(Filters.eq("_id", order)).first();
        run.note("then only a reorder of the shape of " + order + " alone: " + source.get("shape", Document.class).toJson());
        run.converge("a reorder alone", views, Set.of());
        requireReaderSees(run, source);
    }

    /** An order's shape, new values in the usual order; the change events it made. */
    private static int shape(FaultRun run, String order) {
        Document z = new Document("a", run.random.nextInt(3)).append("b", "b" + run.random.nextInt(2));
        Document shape = new Document("x", run.random.nextInt(3)).append("y", "y" + run.random.nextInt(2)).append("z", z);
        return run.shop.update(Shop.ORDERS, Filters.eq("_id", order), Updates.set("shape", shape));
    }

    /** The same shape with its fields, or those of z, in another order; 0 when the order has no shape. */
    private static int reorder(FaultRun run, String order) {
        Document current = run.db.getCollection(Shop.ORDERS).find(Filters.eq("_id", order)).first();
        Document shape = current == null ? null : current.get("shape", Document.class);
        if (shape == null) {
            return 0;
        }
        Document reordered;
        if (run.random.nextBoolean() && shape.get("z") instanceof Document z) {
            reordered = new Document();
            shape.forEach((name, value) -> reordered.append(name, name.equals("z") ? permuted(run, z) : value));
        }
        else {
            reordered = permuted(run, shape);
        }
        return run.shop.update(Shop.ORDERS, Filters.eq("_id", order), Updates.set("shape", reordered));
    }

    /** The fields of a document in another order than they are. */
    private static Document permuted(FaultRun run, Document document) {
        List<String> names = new ArrayList<>(document.keySet());
        List<String> order = new ArrayList<>(names);
        while (order.equals(names)) {
            Collections.shuffle(order, new java.util.Random(run.random.nextLong()));
        }
        Document permuted = new Document();
        order.forEach(name -> permuted.append(name, document.get(name)));
        return permuted;
    }

    /** A reader of the order's tenant reads the shape in the order the source holds it now. */
    private static void requireReaderSees(FaultRun run, Document source) {
        Object tenant = source.get(Shop.PARTITION);
        Document view = run.shop.views().find(Filters.eq("_id", "shape-" + tenant)).first();
        if (view == null) {
            return;
        }
        Document row = run.db.getCollection(SHAPES).find(Filters.and(ViewFilter.of(view, Shop.PARTITION,
                MaterializerOptions.DEFAULT_STATUS_FIELD), Filters.eq(ViewFilter.ROW_FIELD, source.get("_id")))).first();
        Document read = row == null ? null : row.get("shape", Document.class);
        Document expected = source.get("shape", Document.class);
        if (read == null || !read.toJson().equals(expected.toJson())) {
            throw new FaultFound(run, "a reorder alone", "a reader of view shape-" + tenant + " reads the shape of "
                    + source.get("_id") + " as " + (read == null ? "nothing" : read.toJson()) + ", not as the source holds it: "
                    + expected.toJson());
        }
    }
}
