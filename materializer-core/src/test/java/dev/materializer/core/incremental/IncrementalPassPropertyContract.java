package dev.materializer.core.incremental;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.materializer.core.incremental.ViewShape.Kind;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import dev.materializer.core.testing.Weighted;
import dev.materializer.testing.TestMongo;
import org.bson.BsonArray;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The property the package exists for, on a server: for seeded random sources and seeded random
 * changes, with the keys {@link AffectedKeys} gives (and what the caller adds: the old keys of the
 * ids it names, the keys of the documents its key queries find),
 *
 * <ol>
 * <li>every row of a key not among them is the same before and after the changes: the keys are
 *     complete;</li>
 * <li>the pipeline restricted to them ({@link KeyRestriction}) gives exactly the rows of the whole
 *     pipeline that have those keys: restricting by key loses nothing and adds nothing.</li>
 * </ol>
 *
 * Keys mix strings, null, missing fields, equal numbers of every type, arrays and embedded
 * documents; images and update descriptions are sometimes absent, as change streams give them.
 * Rows are compared as MongoDB compares values ({@link GroupKey}), since a group may come out with
 * any of its equal forms of a number.
 *
 * <p>Where the server groups arrays as MongoDB does not (mongo-java-server puts {@code [1, 2]} into
 * the group of {@code 1}), keys that group on one path draw no arrays; arrays still appear in the
 * parts of compound keys, in lookups and in unwound fields. Written once, run on each kind of server.
 */
abstract class IncrementalPassPropertyContract {

    private static final int CASES = 30;

    private static final String ORDERS = "orders";

    private static final String PRODUCTS = "products";

    /** A view of the test and the shape the analysis must find for it. */
    private record View(String name, Kind kind, String pipeline) {

        /** Its collections: the primary source, and the products when it joins them. */
        boolean reads(String collection) {
            return collection.equals(ORDERS) || (collection.equals(PRODUCTS) && pipeline.contains("$lookup"));
        }
    }

    private static final List<View> VIEWS = List.of(
            new View("by customer", Kind.GROUP_BY,
                    "[{$group: {_id: '$customer', n: {$sum: 1}, q: {$sum: '$qty'}, top: {$max: '$price'}}}]"),
            new View("by customer and region", Kind.GROUP_BY, """
                    [{$match: {qty: {$gt: 0}}}, {$group: {_id: {c: '$customer', r: '$region'}, q: {$sum: '$qty'}}},
                     {$match: {q: {$gte: 2}}}, {$sort: {q: -1}}]"""),
            new View("by tier, a dotted path", Kind.GROUP_BY, """
                    [{$addFields: {value: {$multiply: ['$qty', '$price']}}},
                     {$group: {_id: '$meta.tier', value: {$sum: '$value'}, n: {$sum: 1}}}, {$project: {value: 1}}]"""),
            new View("by a renamed customer", Kind.GROUP_BY,
                    "[{$project: {cust: '$customer', qty: 1}}, {$group: {_id: '$cust', q: {$sum: '$qty'}}}]"),
            new View("per document", Kind.PER_DOCUMENT,
                    "[{$match: {qty: {$gte: 2}}}, {$project: {customer: 1, total: {$multiply: ['$qty', '$price']}}}]"),
            new View("per document by sku", Kind.PER_DOCUMENT, "[{$project: {_id: '$sku', qty: 1, customer: 1}}]"),
            new View("per document joined", Kind.PER_DOCUMENT, """
                    [{$lookup: {from: 'products', localField: 'product', foreignField: 'sku', as: 'p'}},
                     {$project: {product: 1, categories: '$p.category'}}]"""),
            new View("joined, then by customer", Kind.GROUP_BY, """
                    [{$lookup: {from: 'products', localField: 'product', foreignField: 'sku', as: 'p'}},
                     {$unwind: {path: '$p', preserveNullAndEmptyArrays: true}},
                     {$group: {_id: '$customer', n: {$sum: 1}, category: {$max: '$p.category'}}}]"""),
            new View("by product, then joined", Kind.GROUP_BY, """
                    [{$group: {_id: '$product', q: {$sum: '$qty'}}},
                     {$lookup: {from: 'products', localField: '_id', foreignField: 'sku', as: 'p'}},
                     {$project: {q: 1, categories: '$p.category'}}]"""),
            new View("count by tier", Kind.GROUP_BY, "[{$sortByCount: '$meta.tier'}]"),
            new View("tags by customer", Kind.GROUP_BY,
                    "[{$unwind: '$tags'}, {$group: {_id: '$customer', tags: {$sum: 1}}}]"),
            new View("lines joined, then by region and tier", Kind.GROUP_BY, """
                    [{$unwind: '$lines'},
                     {$lookup: {from: 'products', localField: 'lines.sku', foreignField: 'sku', as: 'p'}},
                     {$group: {_id: {r: '$region', t: '$meta.tier'}, q: {$sum: '$lines.qty'}, category: {$min: '$p.category'}}}]"""));

    /** How often each kind of case came up, over all seeds: a generator that never makes one tests nothing. */
    private static final class Coverage {
        int checks;
        int fullPasses;
        int withKeys;
        int withUnknown;
        int withQueries;
        int withNullKey;
        int withoutKeyFilter;
        int keysThatChanged;
    }

    @Test
    void theAffectedKeysAreCompleteAndTheirRestrictedPipelineGivesTheirRows(TestMongo mongo) {
        MongoDatabase database = mongo.database();
        boolean arrays = IncrementalServer.groupsArraysWhole(database);
        List<ViewShape> shapes = new ArrayList<>();
        for (View view : VIEWS) {
            ViewShape shape = ShapeAnalysis.analyze(IncrementalShapeAnalysisTest.pipeline(view.pipeline()), ORDERS);
            assertThat(shape.kind()).as(view.name() + ": " + shape.fullReason()).isEqualTo(view.kind());
            shapes.add(shape);
        }
        Coverage coverage = new Coverage();

        Seeds.check(CASES, gen -> new Case(database, gen, arrays, shapes, coverage).check());

        String replay = System.getProperty(Seeds.REPLAY);
        if (replay == null || replay.isBlank()) {
            assertThat(coverage.checks).isEqualTo(Seeds.of(CASES).count() * VIEWS.size());
            assertThat(coverage.fullPasses).as("full passes").isPositive();
            assertThat(coverage.withKeys).as("incremental checks").isGreaterThan(coverage.checks * 3 / 4);
            assertThat(coverage.withUnknown).as("checks with unknown old keys").isPositive();
            assertThat(coverage.withQueries).as("checks with key queries").isPositive();
            assertThat(coverage.withNullKey).as("checks with the null key").isPositive();
            assertThat(coverage.withoutKeyFilter).as("checks without a key filter").isPositive();
            assertThat(coverage.keysThatChanged).as("keys whose rows changed").isGreaterThan(coverage.checks);
        }
    }

    /** One seed: sources, changes, and the check of every view. */
    private static final class Case {

        private final Gen gen;
        private final boolean arrays;
        private final List<ViewShape> shapes;
        private final Coverage coverage;
        private final MongoCollection<BsonDocument> orders;
        private final MongoCollection<BsonDocument> products;
        private final Map<BsonValue, BsonDocument> orderDocs = new LinkedHashMap<>();
        private final Map<BsonValue, BsonDocument> productDocs = new LinkedHashMap<>();
        private final List<String> log = new ArrayList<>();
        private int nextOrder;
        private int nextProduct;

        Case(MongoDatabase database, Gen gen, boolean arrays, List<ViewShape> shapes, Coverage coverage) {
            this.gen = gen;
            this.arrays = arrays;
            this.shapes = shapes;
            this.coverage = coverage;
            this.orders = database.getCollection(ORDERS, BsonDocument.class);
            this.products = database.getCollection(PRODUCTS, BsonDocument.class);
        }

        void check() {
            orders.drop();
            products.drop();
            for (nextProduct = 0; nextProduct < 8; nextProduct++) {
                BsonDocument product = product(new BsonString("p" + nextProduct));
                productDocs.put(product.get("_id"), product);
            }
            int count = gen.between(150, 300);
            for (nextOrder = 1; nextOrder <= count; nextOrder++) {
                BsonDocument order = order(new BsonInt32(nextOrder));
                orderDocs.put(order.get("_id"), order);
            }
            orders.insertMany(copies(orderDocs.values()));
            products.insertMany(copies(productDocs.values()));
            Map<BsonValue, BsonDocument> ordersBefore = new HashMap<>();
            orderDocs.forEach((id, order) -> ordersBefore.put(id, order.clone()));
            List<List<BsonDocument>> before = new ArrayList<>();
            for (ViewShape shape : shapes) {
                before.add(run(shape.pipeline()));
            }

            List<Change> changes = new ArrayList<>();
            int changeCount = gen.between(1, 5);
            for (int i = 0; i < changeCount; i++) {
                changes.add(gen.oneIn(4) ? productChange() : orderChange());
            }

            for (int v = 0; v < shapes.size(); v++) {
                checkView(VIEWS.get(v), shapes.get(v), changes, ordersBefore, before.get(v));
            }
        }

        private void checkView(View view, ViewShape shape, List<Change> changes, Map<BsonValue, BsonDocument> ordersBefore,
                List<BsonDocument> before) {
            coverage.checks++;
            AffectedKeys affected = AffectedKeys.none();
            for (Change change : changes) {
                // As the engine routes changes: only those of collections the view reads
                if (view.reads(change.collection())) {
                    affected = affected.union(AffectedKeys.of(shape, change.collection(), change.event()));
                }
            }
            String what = view.name() + " after " + log + ": " + affected;
            if (affected.needsFullPass()) {
                coverage.fullPasses++;
                assertThat(affected.keys()).isEmpty();
                return;
            }
            // What the caller adds: the old keys of the ids named (from the rows it stored at the last
            // pass, which are those of the documents then), and the keys the key queries find
            Set<GroupKey> keys = new LinkedHashSet<>(affected.keys());
            for (BsonValue id : affected.unknownOldKeyOf()) {
                BsonDocument old = ordersBefore.get(id);
                if (old != null) {
                    keys.add(shape.keyOf(old));
                }
            }
            for (BsonDocument query : affected.keyQueries()) {
                for (BsonDocument found : orders.find(query).projection(shape.keyProjection())) {
                    keys.add(shape.keyOf(found));
                }
            }
            coverage.withKeys += keys.isEmpty() ? 0 : 1;
            coverage.withUnknown += affected.unknownOldKeyOf().isEmpty() ? 0 : 1;
            coverage.withQueries += affected.keyQueries().isEmpty() ? 0 : 1;
            coverage.withNullKey += keys.contains(GroupKey.nullKey()) ? 1 : 0;

            List<BsonDocument> after = run(shape.pipeline());
            Map<GroupKey, Map<GroupKey, Integer>> rowsBefore = byRowId(before);
            Map<GroupKey, Map<GroupKey, Integer>> rowsAfter = byRowId(after);

            // 1. Complete: the rows of every other key did not change
            Set<GroupKey> rowIds = new LinkedHashSet<>(rowsBefore.keySet());
            rowIds.addAll(rowsAfter.keySet());
            for (GroupKey rowId : rowIds) {
                boolean same = Objects.equals(rowsBefore.get(rowId), rowsAfter.get(rowId));
                if (!keys.contains(rowId)) {
                    assertThat(rowsAfter.get(rowId)).as("the rows of %s, a key not affected, in %s", rowId, what)
                        .isEqualTo(rowsBefore.get(rowId));
                } else if (!same) {
                    coverage.keysThatChanged++;
                }
            }
            if (keys.isEmpty()) {
                return;
            }

            // 2. Exact: the restricted pipeline gives the rows of the whole one for those keys
            KeyRestriction restriction = KeyRestriction.of(shape);
            coverage.withoutKeyFilter += restriction.keyFilter(keys) == null ? 1 : 0;
            List<BsonDocument> restricted = run(restriction.pipeline(keys));
            Map<GroupKey, Map<GroupKey, Integer>> rowsRestricted = byRowId(restricted);
            assertThat(keys).as("the keys of the restricted rows in %s", what).containsAll(rowsRestricted.keySet());
            Map<GroupKey, Map<GroupKey, Integer>> expected = new HashMap<>();
            rowsAfter.forEach((rowId, rows) -> {
                if (keys.contains(rowId)) {
                    expected.put(rowId, rows);
                }
            });
            assertThat(rowsRestricted).as("the restricted rows of %s in %s", keys, what).isEqualTo(expected);
        }

        // ---- changes

        /** A change event of one collection, applied to the server and to the documents known. */
        private record Change(String collection, SourceChange event) {
        }

        private Change orderChange() {
            Operation operation = orderDocs.isEmpty() ? Operation.INSERT
                    : new Weighted<Operation>().or(2, Operation.INSERT).or(5, Operation.UPDATE).or(2, Operation.REPLACE)
                        .or(2, Operation.DELETE).pick(gen);
            return change(ORDERS, orders, orderDocs, operation, () -> order(new BsonInt32(nextOrder++)), this::mutateOrder,
                    this::order);
        }

        private Change productChange() {
            Operation operation = productDocs.isEmpty() ? Operation.INSERT
                    : new Weighted<Operation>().or(2, Operation.INSERT).or(4, Operation.UPDATE).or(2, Operation.REPLACE)
                        .or(2, Operation.DELETE).pick(gen);
            return change(PRODUCTS, products, productDocs, operation, () -> product(new BsonString("p" + nextProduct++)),
                    this::mutateProduct, this::product);
        }

        private Change change(String name, MongoCollection<BsonDocument> collection, Map<BsonValue, BsonDocument> docs,
                Operation operation, Supplier<BsonDocument> inserted, java.util.function.UnaryOperator<BsonDocument> mutated,
                java.util.function.Function<BsonValue, BsonDocument> replaced) {
            BsonValue id = operation == Operation.INSERT ? null : gen.oneOf(new ArrayList<>(docs.keySet()));
            BsonDocument pre = id == null ? null : docs.get(id).clone();
            BsonDocument post = switch (operation) {
                case INSERT -> inserted.get();
                case UPDATE -> mutated.apply(pre.clone());
                case REPLACE -> replaced.apply(id);
                default -> null;
            };
            BsonValue documentId = post != null ? post.get("_id") : id;
            if (post == null) {
                collection.deleteOne(Filters.eq("_id", documentId));
                docs.remove(documentId);
            } else if (pre == null) {
                collection.insertOne(post.clone());
                docs.put(documentId, post.clone());
            } else {
                collection.replaceOne(Filters.eq("_id", documentId), post.clone());
                docs.put(documentId, post.clone());
            }
            // Images and update descriptions as change streams give them: sometimes not at all
            UpdatedFields update = operation == Operation.UPDATE && !gen.oneIn(8) ? diff(pre, post) : null;
            BsonDocument preImage = pre != null && gen.oneIn(5) ? null : pre;
            BsonDocument postImage = post != null && gen.oneIn(operation == Operation.UPDATE ? 12 : 30) ? null : post;
            log.add(name + " " + operation + " " + documentId + (preImage == null ? " (no pre-image)" : "")
                    + (postImage == null && post != null ? " (no post-image)" : "")
                    + (operation == Operation.UPDATE ? " " + (update == null ? "(no description)" : update) : "")
                    + (pre == null ? "" : " from " + pre.toJson()) + (post == null ? "" : " to " + post.toJson()));
            return new Change(name, new SourceChange(operation, postImage, preImage, documentId, update, null, null));
        }

        /**
         * The update description of a change from one document to another, as MongoDB reports it: a
         * changed embedded document or array either field by field (an update of {@code meta.tier})
         * or whole (a {@code $set} of {@code meta}).
         */
        private UpdatedFields diff(BsonDocument before, BsonDocument after) {
            List<String> updated = new ArrayList<>();
            List<String> removed = new ArrayList<>();
            diff("", before, after, updated, removed);
            return new UpdatedFields(updated, removed, List.of());
        }

        private void diff(String prefix, BsonDocument before, BsonDocument after, List<String> updated,
                List<String> removed) {
            for (Map.Entry<String, BsonValue> field : after.entrySet()) {
                BsonValue old = before.get(field.getKey());
                String path = prefix + field.getKey();
                boolean whole = gen.anyBoolean();
                if (old != null && old.isDocument() && field.getValue().isDocument() && !whole) {
                    diff(path + ".", old.asDocument(), field.getValue().asDocument(), updated, removed);
                } else if (old != null && old.isArray() && field.getValue().isArray() && !whole
                        && old.asArray().size() == field.getValue().asArray().size()) {
                    for (int i = 0; i < old.asArray().size(); i++) {
                        if (!old.asArray().get(i).equals(field.getValue().asArray().get(i))) {
                            updated.add(path + "." + i);
                        }
                    }
                } else if (!field.getValue().equals(old)) {
                    updated.add(path);
                }
            }
            for (String name : before.keySet()) {
                if (!after.containsKey(name)) {
                    removed.add(prefix + name);
                }
            }
        }

        private BsonDocument mutateOrder(BsonDocument order) {
            int changes = gen.between(1, 3);
            for (int i = 0; i < changes; i++) {
                switch (gen.between(0, 9)) {
                    case 0 -> set(order, "customer", customer());
                    case 1 -> set(order, "region", region());
                    case 2 -> {
                        BsonValue meta = order.get("meta");
                        if (meta != null && meta.isDocument()) {
                            set(meta.asDocument(), "tier", tier());
                        } else {
                            set(order, "meta", meta());
                        }
                    }
                    case 3 -> set(order, "meta", meta());
                    case 4 -> order.put("qty", new BsonInt32(gen.between(0, 5)));
                    case 5 -> order.put("price", new BsonDouble(gen.between(0, 20) / 2.0));
                    case 6 -> set(order, "product", productRef());
                    case 7 -> set(order, "sku", sku());
                    case 8 -> {
                        BsonValue lines = order.get("lines");
                        if (lines != null && !lines.asArray().isEmpty() && gen.anyBoolean()) {
                            lines.asArray().set(gen.between(0, lines.asArray().size() - 1), line());
                        } else {
                            set(order, "lines", lines());
                        }
                    }
                    default -> set(order, "tags", tags());
                }
            }
            return order;
        }

        private BsonDocument mutateProduct(BsonDocument product) {
            if (gen.anyBoolean()) {
                set(product, "sku", productSku());
            } else {
                product.put("category", new BsonString("c" + gen.between(0, 3)));
            }
            return product;
        }

        // ---- documents

        private BsonDocument order(BsonValue id) {
            BsonDocument order = new BsonDocument("_id", id);
            set(order, "customer", customer());
            set(order, "region", region());
            set(order, "meta", meta());
            order.put("qty", new BsonInt32(gen.between(0, 5)));
            order.put("price", new BsonDouble(gen.between(0, 20) / 2.0));
            set(order, "product", productRef());
            set(order, "sku", sku());
            set(order, "tags", tags());
            set(order, "lines", lines());
            return order;
        }

        private @Nullable BsonValue lines() {
            return gen.oneIn(6) ? null : new BsonArray(gen.listOf(0, 3, this::line));
        }

        private BsonDocument line() {
            BsonDocument line = new BsonDocument("qty", new BsonInt32(gen.between(1, 3)));
            set(line, "sku", productRef());
            return line;
        }

        private BsonDocument product(BsonValue id) {
            BsonDocument product = new BsonDocument("_id", id);
            set(product, "sku", productSku());
            product.put("category", new BsonString("c" + gen.between(0, 3)));
            return product;
        }

        /** Sets a field, or removes it for a missing value (null in Java). */
        private static void set(BsonDocument document, String field, @Nullable BsonValue value) {
            if (value == null) {
                document.remove(field);
            } else {
                document.put(field, value);
            }
        }

        private @Nullable BsonValue customer() {
            Weighted<Supplier<@Nullable BsonValue>> values = new Weighted<Supplier<@Nullable BsonValue>>()
                .or(8, () -> new BsonString(gen.oneOf("ann", "bob", "cy", "dee")))
                .or(2, () -> BsonNull.VALUE)
                .or(2, () -> null)
                .or(6, () -> number(gen.between(1, 2)))
                .or(1, () -> new BsonDouble(2.5));
            if (arrays) {
                values.or(2, () -> gen.anyBoolean() ? new BsonArray(List.of(number(1), number(2)))
                        : new BsonArray(List.of(new BsonString("ann"))));
            }
            return values.pick(gen).get();
        }

        private @Nullable BsonValue region() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(6, () -> new BsonString(gen.oneOf("n", "s")))
                .or(2, () -> BsonNull.VALUE)
                .or(2, () -> null)
                .or(2, () -> number(1))
                .or(1, () -> new BsonArray(List.of(new BsonString("n"), new BsonString("s"))))
                .or(1, () -> new BsonDocument("zone", number(gen.between(1, 2))))
                .pick(gen).get();
        }

        private @Nullable BsonValue meta() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(8, () -> {
                    BsonDocument meta = new BsonDocument();
                    set(meta, "tier", tier());
                    if (gen.anyBoolean()) {
                        meta.put("since", new BsonInt32(gen.between(2000, 2003)));
                    }
                    return meta;
                })
                .or(1, () -> null)
                .or(1, () -> BsonNull.VALUE)
                .or(1, () -> new BsonInt32(5))
                .pick(gen).get();
        }

        private @Nullable BsonValue tier() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(6, () -> new BsonString(gen.oneOf("gold", "silver")))
                .or(2, () -> BsonNull.VALUE)
                .or(2, () -> null)
                .or(3, () -> number(1))
                .pick(gen).get();
        }

        private @Nullable BsonValue productRef() {
            Weighted<Supplier<@Nullable BsonValue>> values = new Weighted<Supplier<@Nullable BsonValue>>()
                .or(8, () -> new BsonString(gen.oneOf("x", "y", "z")))
                .or(1, () -> BsonNull.VALUE)
                .or(1, () -> null);
            if (arrays) {
                values.or(1, () -> new BsonArray(List.of(new BsonString("x"), new BsonString("y"))));
            }
            return values.pick(gen).get();
        }

        private @Nullable BsonValue productSku() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(8, () -> new BsonString(gen.oneOf("x", "y", "z", "w")))
                .or(1, () -> BsonNull.VALUE)
                .or(1, () -> null)
                .or(1, () -> new BsonArray(List.of(new BsonString("x"), new BsonString("y"))))
                .pick(gen).get();
        }

        private @Nullable BsonValue sku() {
            return gen.oneIn(40) ? null : new BsonString("s" + gen.between(0, 80));
        }

        private @Nullable BsonValue tags() {
            if (gen.oneIn(4)) {
                return null;
            }
            return new BsonArray(gen.listOf(0, 3, () -> new BsonString(gen.oneOf("a", "b", "c"))));
        }

        /** A whole number in any of MongoDB's numeric types. */
        private BsonValue number(int value) {
            return switch (gen.between(0, 3)) {
                case 0 -> new BsonInt32(value);
                case 1 -> new BsonInt64(value);
                case 2 -> new BsonDouble(value);
                default -> new BsonDecimal128(new Decimal128(new BigDecimal(value).setScale(gen.between(0, 2))));
            };
        }

        // ---- results

        private List<BsonDocument> run(List<BsonDocument> pipeline) {
            return orders.aggregate(pipeline).into(new ArrayList<>());
        }

        /** Rows by the key of their _id, each key's rows as a multiset of rows compared as MongoDB compares values. */
        private static Map<GroupKey, Map<GroupKey, Integer>> byRowId(List<BsonDocument> rows) {
            Map<GroupKey, Map<GroupKey, Integer>> byId = new HashMap<>();
            for (BsonDocument row : rows) {
                byId.computeIfAbsent(GroupKey.of(row.get("_id")), id -> new HashMap<>())
                    .merge(GroupKey.of(row), 1, Integer::sum);
            }
            return byId;
        }

        private static List<BsonDocument> copies(Iterable<BsonDocument> documents) {
            List<BsonDocument> copies = new ArrayList<>();
            documents.forEach(document -> copies.add(document.clone()));
            return copies;
        }
    }
}
