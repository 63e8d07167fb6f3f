package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;

/**
 * Random views of the shapes the docs support, and random edits of their lifecycle, for the
 * differential scenario. Three levels, so views over views never form a cycle: views of the
 * sources (per-document {@code $project}/{@code $match}/{@code $addFields}, keyed by the source
 * {@code _id} or a unique field; {@code $group} by a field, by the mixed-type {@code k} or by a
 * compound key; a {@code $lookup} of customers; a group of customers), views over their targets,
 * and views over those. Each level writes targets of its own, and two views of a tenant never name
 * one target (a view moved or retargeted takes a target free where it goes). View ids mix types:
 * {@code "v3"}, {@code 3}, {@code "3"}, ObjectIds.
 *
 * <p>Every pipeline runs on the in-process server, and gives the same rows on every run over the
 * same documents, so a fresh run is the truth.
 *
 * <p>Not thread-safe: the scenario's thread edits.
 */
final class RandomViews {

    /** Targets per level; a level reads the targets of the level below. */
    private static final List<List<String>> TARGETS = List.of(List.of("b0", "b1", "b2", "b3"), List.of("d0", "d1", "d2"),
            List.of("e0", "e1"));

    private static final String LOOKUP = "{$lookup: {from: 'customers', let: {c: '$customer'},"
            + " pipeline: [{$match: {$expr: {$eq: ['$_id', '$$c']}}}], as: 'who'}}";

    private static final String UNWIND = "{$unwind: {path: '$who', preserveNullAndEmptyArrays: true}}";

    /** Pipelines over the sources; the first source is the primary. Each row carries a number n. */
    private static final List<Shape> OVER_SOURCES = List.of(
            new Shape(List.of(Shop.ORDERS), "{$project: {k: 1, n: '$quantity', status: 1}}"),
            new Shape(List.of(Shop.ORDERS), "{$match: {status: {$in: ['paid', 'shipped']}}}", "{$project: {n: '$quantity', k: 1}}"),
            new Shape(List.of(Shop.ORDERS), "{$addFields: {n: {$multiply: ['$quantity', '$price']}}}",
                    "{$project: {n: 1, product: 1}}"),
            new Shape(List.of(Shop.ORDERS), "{$project: {_id: '$code', n: '$quantity', k: 1}}"),
            new Shape(List.of(Shop.ORDERS), "{$group: {_id: '$product', n: {$sum: 1}, q: {$sum: '$quantity'}}}"),
            new Shape(List.of(Shop.ORDERS), "{$group: {_id: '$status', n: {$sum: '$quantity'}}}",
                    "{$match: {n: {$gte: 2}}}"),
            new Shape(List.of(Shop.ORDERS), "{$match: {k: {$ne: null}}}", "{$group: {_id: '$k', n: {$sum: 1}, q: {$sum: '$quantity'}}}"),
            new Shape(List.of(Shop.ORDERS), "{$group: {_id: {p: '$product', k: '$k'}, n: {$sum: 1}}}",
                    "{$addFields: {big: {$gt: ['$n', 1]}}}"),
            new Shape(List.of(Shop.ORDERS), "{$group: {_id: {c: '$customer', s: '$status'}, n: {$sum: '$quantity'}}}"),
            new Shape(List.of(Shop.ORDERS, Shop.CUSTOMERS), LOOKUP, UNWIND, "{$project: {n: '$quantity', region: '$who.region'}}"),
            new Shape(List.of(Shop.ORDERS, Shop.CUSTOMERS), LOOKUP, UNWIND,
                    "{$group: {_id: '$customer', n: {$sum: '$quantity'}, region: {$max: '$who.region'}}}"),
            new Shape(List.of(Shop.CUSTOMERS), "{$group: {_id: '$region', n: {$sum: 1}}}"));

    /** Pipelines over another view's target (its rows as stored: the row's id in _id.id). */
    private static final List<Shape> OVER_VIEWS = List.of(
            new Shape(List.of(), "{$project: {_id: '$_id.id', n: 1}}"),
            new Shape(List.of(), "{$match: {n: {$gte: 2}}}", "{$project: {_id: '$_id.id', n: 1}}"),
            new Shape(List.of(), "{$group: {_id: 'all', n: {$sum: '$n'}, rows: {$sum: 1}}}"),
            new Shape(List.of(), "{$project: {_id: '$_id.id', n: 1}}", "{$sort: {n: -1, _id: 1}}", "{$limit: 2}"));

    /** A pipeline and the sources it reads (none for a view over a view: the target it reads is chosen). */
    private record Shape(List<String> sources, String... stages) {
    }

    /** One view as the scenario defined it last. */
    static final class View {

        final Object id;

        final int level;

        String tenant;

        String target;

        List<String> sources;

        View(Object id, int level) {
            this.id = id;
            this.level = level;
        }
    }

    private final FaultRun run;

    private final List<View> views = new ArrayList<>();

    private int next;

    RandomViews(FaultRun run) {
        this.run = run;
    }

    /** Some views in every tenant: views of the sources, views over them, and on some rolls a view over those. */
    void defineSome() {
        for (String tenant : run.shop.tenants()) {
            for (int i = 0; i < 1 + run.random.nextInt(3); i++) {
                defined(add(tenant, 0));
            }
            for (int i = 0; i < run.random.nextInt(3); i++) {
                defined(add(tenant, 1));
            }
            if (run.random.nextInt(3) == 0) {
                defined(add(tenant, 2));
            }
        }
    }

    private void defined(View view) {
        if (view != null) {
            run.note("defined " + describe(view) + ": " + pipelineOf(view));
        }
    }

    /** The pipeline of a view as stored, for the timeline. */
    private String pipelineOf(View view) {
        Document document = run.shop.views().find(filter(view)).first();
        return document == null ? "(gone)" : String.valueOf(document.get("pipeline"));
    }

    /** The names the convergence checker gives the views there are now. */
    Set<String> names() {
        Set<String> names = new LinkedHashSet<>();
        for (View view : views) {
            names.add(run.checker.nameOf(new Document("_id", view.id).append(Shop.PARTITION, view.tenant).toBsonDocument()));
        }
        return names;
    }

    int size() {
        return views.size();
    }

    /** One random edit of the lifecycle: add, new pipeline, retarget, move to another tenant, delete; what it did. */
    String edit() {
        int roll = run.random.nextInt(10);
        if (roll < 3 || views.isEmpty()) {
            View view = add(run.shop.tenant(), run.random.nextInt(3));
            return view == null ? "no target free to add a view" : "added " + describe(view) + ": " + pipelineOf(view);
        }
        View view = run.shop.pick(views);
        if (roll < 5) {
            Document pipeline = pipeline(view.level, view.tenant);
            run.shop.views().updateOne(filter(view), Updates.combine(Updates.set("pipeline", pipeline.get("pipeline")),
                    Updates.set("collections", pipeline.get("collections"))));
            view.sources = pipeline.getList("collections", String.class);
            return "new pipeline for " + describe(view) + ": " + pipelineOf(view);
        }
        if (roll < 7) {
            String target = freeTarget(view.level, view.tenant);
            if (target == null) {
                return "no target free to retarget " + describe(view);
            }
            String was = view.target;
            run.shop.views().updateOne(filter(view), Updates.set("targetCollection", target));
            view.target = target;
            return "retargeted " + describe(view) + " from " + was;
        }
        if (roll < 9) {
            List<String> others = run.shop.tenants().stream().filter(other -> !other.equals(view.tenant)).toList();
            String tenant = run.shop.pick(others);
            if (!isFree(view.target, tenant)) {
                return "no move for " + describe(view) + " to " + tenant;
            }
            String was = view.tenant;
            run.shop.views().updateOne(filter(view), Updates.set(Shop.PARTITION, tenant));
            view.tenant = tenant;
            return "moved " + describe(view) + " from " + was;
        }
        run.shop.views().deleteOne(filter(view));
        views.remove(view);
        return "deleted " + describe(view);
    }

    private View add(String tenant, int level) {
        String target = freeTarget(level, tenant);
        if (target == null) {
            return null;
        }
        View view = new View(newId(), level);
        view.tenant = tenant;
        view.target = target;
        Document pipeline = pipeline(level, tenant);
        view.sources = pipeline.getList("collections", String.class);
        run.shop.views().insertOne(new Document("_id", view.id).append(Shop.PARTITION, tenant)
            .append("collections", view.sources).append("pipeline", pipeline.get("pipeline")).append("targetCollection", target));
        views.add(view);
        return view;
    }

    /** A random pipeline of a level, with its collections; a view over a view reads a target of the level below. */
    private Document pipeline(int level, String tenant) {
        Shape shape = level == 0 ? run.shop.pick(OVER_SOURCES) : run.shop.pick(OVER_VIEWS);
        List<String> sources = level == 0 ? shape.sources() : List.of(run.shop.pick(TARGETS.get(level - 1)));
        List<Document> stages = new ArrayList<>();
        for (String stage : shape.stages()) {
            stages.add(Document.parse(stage));
        }
        return new Document("collections", sources).append("pipeline", stages);
    }

    private String freeTarget(int level, String tenant) {
        List<String> free = TARGETS.get(level).stream().filter(target -> isFree(target, tenant)).toList();
        return free.isEmpty() ? null : run.shop.pick(free);
    }

    private boolean isFree(String target, String tenant) {
        return views.stream().noneMatch(view -> view.tenant.equals(tenant) && view.target.equals(target));
    }

    /** "v3", 3, "3" (reading as the number another view has), or an ObjectId. */
    private Object newId() {
        int number = next++;
        return switch (run.random.nextInt(4)) {
            case 0 -> number;
            case 1 -> {
                // The text of a number another view has as its id, when one has: ids that read alike.
                Object alike = views.stream().map(view -> view.id).filter(Integer.class::isInstance)
                    .map(String::valueOf).filter(text -> views.stream().noneMatch(view -> text.equals(view.id)))
                    .findFirst().orElse(null);
                yield alike != null ? alike : String.valueOf(number);
            }
            case 2 -> new ObjectId();
            default -> "v" + number;
        };
    }

    private static Bson filter(View view) {
        return Filters.eq("_id", view.id);
    }

    static String describe(View view) {
        String id = view.id instanceof String text ? "'" + text + "'" : view.id instanceof ObjectId oid ? "ObjectId " + oid
                : String.valueOf(view.id);
        return "view " + id + " of " + view.tenant + " (level " + view.level + ", " + view.sources + " -> " + view.target + ")";
    }
}
