package dev.materializer.core.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.PassPlanner;
import dev.materializer.core.incremental.ShapeAnalysis;
import dev.materializer.core.incremental.ViewShape;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import dev.materializer.core.testing.Weighted;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import dev.materializer.testing.Capability;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The promise of key-scoped passes, end to end on a server: for seeded random sources and seeded
 * random changes, a view run with the key scope {@link PassPlanner} plans from the
 * {@link AffectedKeys} of the changes shows its readers exactly the rows the same view shows when
 * run whole.
 *
 * <p>Each seed stores pairs of identical views of one partition with their own targets, {@code inc}
 * and {@code whole}, and runs each once. Then, step by step, it applies a batch of one to a few random
 * changes to the sources (inserts, updates of a non-key field, updates that move a document to
 * another key, replaces, deletes) and builds each change's event as a change stream gives it: the
 * post-image of an insert or replace, an update's post-image as {@code updateLookup} finds it (right
 * after the update, or only after the rest of the batch, maybe deleted by then), the pre-image only
 * where the case says the collection keeps pre-images, the update description naming the fields the
 * update set or removed. The affected keys of the batch are unioned as the engine unions the marks of
 * a pass (now and then with a mark that names no keys, a retry or a restart), {@code inc} runs with
 * the planned scope (its key queries through {@link ViewRunner#find}), {@code whole} runs whole, and
 * the rows a reader sees of each must be equal, row id by row id, content without the engine's fields.
 * A planned scope must run key-scoped, not fall back; after the last step a whole pass of {@code inc}
 * must find nothing to change; and the counts of key-scoped and whole passes over a run must both be
 * positive, so no shape tests nothing.
 *
 * <p>Documents of another partition sit beside the view's. Rows whose {@code _id} is null error a
 * view (docs/views.md), so group-by views either leave customerless documents out before their
 * {@code $group} or group by a document. On a server without MongoDB 5.0's {@code $lookup} that has
 * both {@code localField} and a pipeline, the runner's database emulates it ({@link LookupEmulation}).
 *
 * <p>A failure names the seed, the command that replays it, the sources, every change so far and
 * the plan. Written once, run on each kind of server.
 */
abstract class KeyScopedPassPropertyContract {

    private static final int CASES = 20;

    private static final int STEPS = 8;

    private static final String PARTITION = "acme";

    /** Documents of another partition sit beside the view's: no pass, whole or key-scoped, may see them. */
    private static final String OTHER_PARTITION = "globex";

    private static final String ORDERS = ViewFixture.SOURCE;

    private static final String PRODUCTS = "products";

    /** What {@link PassPlanner} says of a pass whose changes lack the pre-image that gives an old key. */
    private static final String NO_PRE_IMAGE = "is unknown (no pre-image)";

    /**
     * By customer, those without one left out: a row whose {@code _id} is null errors the view (see
     * docs/views.md), so the null and missing customers of the sources must give no row here.
     */
    private static final String[] BY_CUSTOMER = { "{$match: {customer: {$ne: null}}}",
        "{$group: {_id: '$customer', total: {$sum: '$amount'}, n: {$sum: 1}}}" };

    /** By customer, as a document: null and missing customers are rows of their own, {@code {customer: null}} and {@code {}}. */
    private static final String[] BY_CUSTOMER_DOCUMENT = {
        "{$group: {_id: {customer: '$customer'}, total: {$sum: '$amount'}, n: {$sum: 1}}}" };

    private static final String[] OPEN_ORDERS = {
        "{$match: {status: 'open'}}", "{$project: {amount: 1, status: 1, customer: 1}}" };

    private static final String LOOKUP = "{$lookup: {from: 'products', localField: 'sku', foreignField: 'sku', as: 'p'}}";

    private static final String[] JOINED = { LOOKUP, "{$project: {amount: 1, sku: 1, prices: '$p.price'}}" };

    private static final String[] JOINED_BY_CUSTOMER = { "{$match: {customer: {$ne: null}}}", LOOKUP,
        "{$unwind: {path: '$p', preserveNullAndEmptyArrays: true}}",
        "{$group: {_id: '$customer', value: {$sum: {$multiply: ['$amount', '$p.price']}}, lines: {$sum: 1}}}" };

    /** A downstream view: it reads the rows of an upstream view's target. */
    private static final String[] COUNT_BY_CUSTOMER = {
        "{$group: {_id: {customer: '$customer'}, n: {$sum: 1}, total: {$sum: '$amount'}}}" };

    /** The keys of a mark that names none, as the engine's marks give them. */
    private static final AffectedKeys UNKEYED = AffectedKeys.fullPass("a change that names no keys (a retry, a restart)");

    private static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    /** The kinds of change a case draws from. */
    private enum Kind {
        INSERT, AMOUNT, STATUS, CUSTOMER, SKU, AMOUNT_AND_CUSTOMER, REPLACE, DELETE,
        PRODUCT_INSERT, PRODUCT_PRICE, PRODUCT_SKU, PRODUCT_REPLACE, PRODUCT_DELETE;

        String collection() {
            return name().startsWith("PRODUCT_") ? PRODUCTS : ORDERS;
        }
    }

    // ---- the shapes

    @Test
    void aGroupByViewKeyScopedShowsTheRowsOfAWholePass(TestMongo mongo, TestInfo test) {
        Tally tally = property(mongo, test, (c, gen) -> {
            c.preImages(gen.anyBoolean(), false);
            c.pair("by customer", ViewShape.Kind.GROUP_BY, List.of(ORDERS), BY_CUSTOMER);
            c.pair("by customer document", ViewShape.Kind.GROUP_BY, List.of(ORDERS), BY_CUSTOMER_DOCUMENT);
            c.mix(new Weighted<Kind>().or(3, Kind.INSERT).or(4, Kind.AMOUNT).or(3, Kind.CUSTOMER)
                .or(1, Kind.AMOUNT_AND_CUSTOMER).or(2, Kind.REPLACE).or(2, Kind.DELETE));
        });
        tally.requireBoth("by customer");
        tally.requireBoth("by customer document");
    }

    @Test
    void aPerDocumentViewKeyScopedShowsTheRowsOfAWholePass(TestMongo mongo, TestInfo test) {
        Tally tally = property(mongo, test, (c, gen) -> {
            c.preImages(gen.anyBoolean(), false);
            c.pair("open orders", ViewShape.Kind.PER_DOCUMENT, List.of(ORDERS), OPEN_ORDERS);
            c.mix(new Weighted<Kind>().or(3, Kind.INSERT).or(3, Kind.AMOUNT).or(5, Kind.STATUS).or(2, Kind.CUSTOMER)
                .or(2, Kind.REPLACE).or(2, Kind.DELETE));
            // A per-document view keys its rows by _id: every change names its row, images or not
            c.check((pair, step) -> assertThat(step.plan.scope()).as(step.what).isNotNull());
        });
        // Whole only with a mark that names no keys
        tally.requireBoth("open orders");
    }

    @Test
    void aJoinedViewKeyScopedOnChangesOfBothCollectionsShowsTheRowsOfAWholePass(TestMongo mongo, TestInfo test) {
        Tally tally = property(mongo, test, (c, gen) -> {
            c.preImages(gen.anyBoolean(), gen.anyBoolean());
            c.pair("joined", ViewShape.Kind.PER_DOCUMENT, List.of(ORDERS, PRODUCTS), JOINED);
            c.pair("joined by customer", ViewShape.Kind.GROUP_BY, List.of(ORDERS, PRODUCTS), JOINED_BY_CUSTOMER);
            c.mix(new Weighted<Kind>().or(2, Kind.INSERT).or(2, Kind.AMOUNT).or(2, Kind.SKU).or(1, Kind.CUSTOMER)
                .or(1, Kind.REPLACE).or(1, Kind.DELETE).or(5, Kind.PRODUCT_PRICE).or(2, Kind.PRODUCT_SKU)
                .or(1, Kind.PRODUCT_INSERT).or(1, Kind.PRODUCT_REPLACE).or(1, Kind.PRODUCT_DELETE));
            c.check((pair, step) -> {
                if (step.batch.size() != 1 || step.batch.get(0).kind != Kind.PRODUCT_PRICE) {
                    return;
                }
                // A product's price changed: the rows of the orders that join it must be among the keys
                Applied change = step.batch.get(0);
                BsonValue sku = change.after == null ? null : change.after.get("sku");
                if (sku == null || sku.isNull()) {
                    return;
                }
                List<BsonDocument> joining = c.orders.find(Filters.and(Filters.eq(c.partitionField(), PARTITION),
                        Filters.eq("sku", sku))).into(new ArrayList<>());
                if (joining.isEmpty()) {
                    return;
                }
                assertThat(step.plan.scope()).as(step.what).isNotNull();
                Set<BsonValue> expected = new LinkedHashSet<>();
                for (BsonDocument order : joining) {
                    expected.add(pair.name.equals("joined") ? order.get("_id") : order.get("customer", BsonNull.VALUE));
                }
                assertThat(step.plan.scope().rowIds()).as(step.what).containsAll(expected);
                c.tally.note(pair.name + ": a price change key-scoped to the orders joining it");
            });
        });
        tally.requireBoth("joined");
        tally.requireBoth("joined by customer");
        tally.requireSome("joined: a price change key-scoped to the orders joining it");
        tally.requireSome("joined by customer: a price change key-scoped to the orders joining it");
        tally.requireSome("key-scoped with key queries");
    }

    @Test
    void aKeyMovingBetweenGroupsIsKeyScopedWithPreImagesAndWholeWithout(TestMongo mongo, TestInfo test) {
        Tally tally = property(mongo, test, (c, gen) -> {
            boolean preImages = gen.seed() % 2 == 1;
            c.preImages(preImages, false);
            c.maxBatch(2);
            c.pair("by customer", ViewShape.Kind.GROUP_BY, List.of(ORDERS), BY_CUSTOMER);
            c.mix(new Weighted<Kind>().or(6, Kind.CUSTOMER).or(3, Kind.AMOUNT).or(1, Kind.INSERT));
            c.check((pair, step) -> {
                boolean moves = step.batch.stream().anyMatch(change -> change.moves("customer"));
                if (preImages || !moves) {
                    // Every change names its keys: the new one, and with a pre-image the old one
                    assertThat(step.plan.scope()).as(step.what).isNotNull();
                    assertThat(step.report.scope()).as(step.what).isEqualTo(PassScope.KEYS);
                    if (moves) {
                        c.tally.note("a move with its pre-image, key-scoped");
                    }
                } else {
                    assertThat(step.plan.scope()).as(step.what).isNull();
                    assertThat(step.report.scope()).as(step.what).isEqualTo(PassScope.FULL);
                    assertThat(step.report.scopeNote()).as(step.what).contains(NO_PRE_IMAGE);
                    c.tally.note("a move without its pre-image, whole: " + step.report.scopeNote());
                }
            });
        });
        tally.requireBoth("by customer");
        tally.requireSome("a move with its pre-image, key-scoped");
        tally.requireSome("a move without its pre-image, whole: "
                + "the key before the change of 1 document(s) is unknown (no pre-image)");
    }

    @Test
    void aDeleteWithoutItsPreImageIsKeyScopedPerDocumentAndWholeInAGroupBy(TestMongo mongo, TestInfo test) {
        Tally tally = property(mongo, test, (c, gen) -> {
            c.preImages(false, false);
            c.pair("open orders", ViewShape.Kind.PER_DOCUMENT, List.of(ORDERS), OPEN_ORDERS);
            c.pair("by customer", ViewShape.Kind.GROUP_BY, List.of(ORDERS), BY_CUSTOMER);
            c.mix(new Weighted<Kind>().or(3, Kind.DELETE).or(3, Kind.INSERT).or(2, Kind.AMOUNT).or(2, Kind.STATUS));
            c.check((pair, step) -> {
                boolean deletes = step.batch.stream().anyMatch(change -> change.operation == Operation.DELETE);
                if (pair.name.equals("open orders") || !deletes) {
                    // By _id a delete names its row; no change here moves a document to another customer
                    assertThat(step.plan.scope()).as(step.what).isNotNull();
                    if (deletes) {
                        c.tally.note("a delete without its pre-image, key-scoped by _id");
                    }
                } else {
                    assertThat(step.plan.scope()).as(step.what).isNull();
                    assertThat(step.report.scope()).as(step.what).isEqualTo(PassScope.FULL);
                    // An update looked up only after a later delete has neither image: that says why first
                    boolean lookupFoundNothing = step.batch.stream()
                        .anyMatch(change -> change.operation == Operation.UPDATE && change.event().fullDocument() == null);
                    assertThat(step.report.scopeNote()).as(step.what)
                        .contains(lookupFoundNothing ? "without its post-image" : NO_PRE_IMAGE);
                    c.tally.note(lookupFoundNothing ? "an update looked up after its delete, whole by customer"
                            : "a delete without its pre-image, whole by customer");
                }
            });
        });
        tally.requireBoth("open orders");
        tally.requireBoth("by customer");
        tally.requireSome("a delete without its pre-image, key-scoped by _id");
        tally.requireSome("a delete without its pre-image, whole by customer");
    }

    @Test
    void aViewOverAKeyScopedViewShowsTheRowsOfAWholeRun(TestMongo mongo, TestInfo test) {
        Tally tally = property(mongo, test, (c, gen) -> {
            c.preImages(gen.anyBoolean(), false);
            c.pair("open orders", ViewShape.Kind.PER_DOCUMENT, List.of(ORDERS), OPEN_ORDERS);
            c.pair("by customer", ViewShape.Kind.GROUP_BY, List.of(ORDERS), BY_CUSTOMER);
            // The engine runs a view whole on changes of another view's rows: here after every upstream pass
            c.downstream("count of open orders", "open orders", COUNT_BY_CUSTOMER);
            c.downstream("count of customers", "by customer", "{$group: {_id: {$gt: ['$n', 1]}, customers: {$sum: 1}}}");
            c.mix(new Weighted<Kind>().or(3, Kind.INSERT).or(3, Kind.AMOUNT).or(4, Kind.STATUS).or(3, Kind.CUSTOMER)
                .or(2, Kind.REPLACE).or(2, Kind.DELETE));
        });
        tally.requireBoth("by customer");
        tally.requireBoth("open orders");
        tally.requireSome("downstream passes");
    }

    // ---- the property

    /** A check of one step of one pair, beyond the equality of the rows. */
    @FunctionalInterface
    private interface StepCheck {
        void check(Pair pair, Step step);
    }

    /** Runs a case per seed; then the counts of the run, printed and returned for the shape's checks. */
    private Tally property(TestMongo mongo, TestInfo test, BiConsumer<Case, Gen> setup) {
        Tally tally = new Tally(replaying());
        String name = getClass().getSimpleName() + "#" + test.getTestMethod().orElseThrow().getName();
        long started = System.nanoTime();
        Seeds.check(CASES, name, gen -> {
            Case c = new Case(mongo, gen, tally, name);
            setup.accept(c, gen);
            c.run();
        });
        System.out.printf("%s: %d seed(s) in %d ms: %s%n", name, Seeds.of(CASES).count(),
                (System.nanoTime() - started) / 1_000_000, tally);
        return tally;
    }

    private static boolean replaying() {
        String replay = System.getProperty(Seeds.REPLAY);
        return replay != null && !replay.isBlank();
    }

    /** How often each kind of pass came up over a run: a shape whose passes were all of one kind tested too little. */
    private static final class Tally {

        private final boolean replaying;

        private final Map<String, Integer> counts = new TreeMap<>();

        Tally(boolean replaying) {
            this.replaying = replaying;
        }

        void note(String what) {
            counts.merge(what, 1, Integer::sum);
        }

        int count(String what) {
            return counts.getOrDefault(what, 0);
        }

        /** Requires that something came up in the run; one seed, replayed, need not give every kind of pass. */
        void requireSome(String what) {
            if (!replaying) {
                assertThat(count(what)).as("how often '%s' came up: %s", what, this).isPositive();
            }
        }

        void requireBoth(String pair) {
            requireSome(pair + " KEYS");
            requireSome(pair + " FULL");
        }

        @Override
        public String toString() {
            return counts.toString();
        }
    }

    /** A pair of identical views: {@code inc} runs with the planned key scope, {@code whole} runs whole. */
    private static final class Pair {

        final String name;

        final List<String> collections;

        final ViewDefinition inc;

        final ViewDefinition whole;

        final ViewShape shape;

        Pair(ViewFixture fixture, String name, ViewShape.Kind kind, List<String> collections, String... stages) {
            this.name = name;
            this.collections = collections;
            String slug = name.replace(' ', '_');
            this.inc = fixture.viewOver(collections, "t_" + slug + "_inc", slug + "-inc", PARTITION, stages);
            this.whole = fixture.viewOver(collections, "t_" + slug + "_whole", slug + "-whole", PARTITION, stages);
            this.shape = ShapeAnalysis.analyze(inc.pipeline(), inc.primarySource());
            assertThat(shape.kind()).as("the shape of %s: %s", name, shape.fullReason()).isEqualTo(kind);
        }
    }

    /** A pair of views a case stores once its collections are cleared. */
    private record PairSpec(String name, ViewShape.Kind kind, List<String> collections, String[] stages) {
    }

    /** A downstream view a case stores: over the targets of the pair named {@code upstream}. */
    private record DownstreamSpec(String name, String upstream, String[] stages) {
    }

    /** A view over the target of each view of a pair, both run whole after every pass of the pair. */
    private record Downstream(String name, Pair upstream, String[] stages, ViewDefinition overInc,
            ViewDefinition overWhole) {
    }

    /** One step of one pair: the batch of changes, what they affect, the plan, and the pass. */
    private static final class Step {

        List<Applied> batch;

        /** Whether a mark without keys came with the batch: the pass runs whole, whatever the changes. */
        boolean unkeyed;

        AffectedKeys affected;

        PassPlanner.Plan plan;

        PassReport report;

        Supplier<String> what;
    }

    /** A change made to a source: what the document was and became, and how its event will say so. */
    private static final class Applied {

        final Case c;

        final Kind kind;

        final String collection;

        final Operation operation;

        final BsonValue id;

        final @Nullable BsonDocument before;

        final @Nullable BsonDocument after;

        final @Nullable UpdatedFields update;

        final String command;

        /** Whether the stream looks the update's post-image up only after the rest of its batch. */
        final boolean lateLookup;

        @Nullable SourceChange event;

        Applied(Case c, Kind kind, Operation operation, BsonValue id, @Nullable BsonDocument before,
                @Nullable BsonDocument after, @Nullable UpdatedFields update, String command, boolean lateLookup) {
            this.c = c;
            this.kind = kind;
            this.collection = kind.collection();
            this.operation = operation;
            this.id = id;
            this.before = before;
            this.after = after;
            this.update = update;
            this.command = command;
            this.lateLookup = lateLookup;
        }

        /** The event, as a change stream gives it once the whole batch is done. */
        SourceChange event() {
            if (event == null) {
                BsonDocument pre = c.keepsPreImages(collection) ? before : null;
                BsonDocument post = switch (operation) {
                    case INSERT, REPLACE -> after;
                    case UPDATE -> lateLookup ? c.find(collection, id) : after;
                    default -> null;
                };
                event = new SourceChange(operation, copy(post), copy(pre), id, update, null, null);
            }
            return event;
        }

        /** Whether the change may move its document from one value of a field to another (a replace may change any). */
        boolean moves(String field) {
            return operation == Operation.REPLACE
                    || (update != null && (update.updated().contains(field) || update.removed().contains(field)));
        }

        @Override
        public String toString() {
            SourceChange change = event();
            return collection + " " + operation.name().toLowerCase(java.util.Locale.ROOT) + " "
                    + new BsonDocument("_id", id).toJson(JSON) + ": " + command
                    + (update == null ? "" : " (updated " + update.updated() + ", removed " + update.removed() + ")")
                    + "; was " + json(before) + ", now " + json(after)
                    + "; event: pre-image " + json(change.fullDocumentBeforeChange())
                    + ", post-image " + json(change.fullDocument())
                    + (operation == Operation.UPDATE && lateLookup ? " (looked up after the batch)" : "");
        }
    }

    /** One seed: sources, views, and the steps of changes. */
    private static final class Case {

        final Gen gen;

        final Tally tally;

        final String test;

        final ViewFixture fixture;

        final ViewRunner runner;

        final MongoDatabase database;

        final MongoCollection<BsonDocument> orders;

        final MongoCollection<BsonDocument> products;

        private final List<PairSpec> pairSpecs = new ArrayList<>();

        private final List<DownstreamSpec> downstreamSpecs = new ArrayList<>();

        private final List<Pair> pairs = new ArrayList<>();

        private final List<Downstream> downstreams = new ArrayList<>();

        private final List<String> log = new ArrayList<>();

        private final List<String> initial = new ArrayList<>();

        private boolean orderPreImages;

        private boolean productPreImages;

        private int maxBatch = 5;

        private Weighted<Kind> mix = new Weighted<Kind>().or(1, Kind.INSERT);

        private StepCheck check = (pair, step) -> { };

        private int nextOrder = 1;

        private int nextProduct = 1;

        Case(TestMongo mongo, Gen gen, Tally tally, String test) {
            this.gen = gen;
            this.tally = tally;
            this.test = test;
            this.fixture = new ViewFixture(mongo);
            // Where the server cannot join as the scope guard asks, the runner's database emulates the join
            this.runner = mongo.has(Capability.LOOKUP_FIELDS_WITH_PIPELINE) ? fixture.runner()
                    : new ViewRunner(LookupEmulation.of(mongo.database()),
                            mongo.has(Capability.TRANSACTIONS) ? mongo.client() : null, fixture.settings,
                            new ScopeGuard(fixture.options.partitionField()), new RowHasher());
            this.database = mongo.database();
            this.orders = database.getCollection(ORDERS, BsonDocument.class);
            this.products = database.getCollection(PRODUCTS, BsonDocument.class);
        }

        // ---- what the shape sets

        void preImages(boolean ofOrders, boolean ofProducts) {
            this.orderPreImages = ofOrders;
            this.productPreImages = ofProducts;
        }

        void maxBatch(int changes) {
            this.maxBatch = changes;
        }

        void mix(Weighted<Kind> kinds) {
            this.mix = kinds;
        }

        void check(StepCheck stepCheck) {
            this.check = stepCheck;
        }

        void pair(String name, ViewShape.Kind kind, List<String> collections, String... stages) {
            pairSpecs.add(new PairSpec(name, kind, collections, stages));
        }

        void downstream(String name, String upstream, String... stages) {
            downstreamSpecs.add(new DownstreamSpec(name, upstream, stages));
        }

        String partitionField() {
            return fixture.options.partitionField();
        }

        boolean keepsPreImages(String collection) {
            return collection.equals(ORDERS) ? orderPreImages : productPreImages;
        }

        // ---- the run

        void run() {
            for (String name : database.listCollectionNames()) {
                database.getCollection(name).drop();
            }
            sources();
            for (PairSpec spec : pairSpecs) {
                pairs.add(new Pair(fixture, spec.name(), spec.kind(), spec.collections(), spec.stages()));
            }
            for (Pair pair : pairs) {
                Supplier<String> what = () -> describe(pair.name, 0, null, null, null);
                requireRan(runner.run(pair.inc), what);
                requireRan(runner.run(pair.whole), what);
                compare(pair.inc, pair.whole, what);
            }
            for (DownstreamSpec spec : downstreamSpecs) {
                Pair upstream = pairs.stream().filter(pair -> pair.name.equals(spec.upstream())).findFirst().orElseThrow();
                String[] stages = spec.stages();
                String slug = spec.name().replace(' ', '_');
                downstreams.add(new Downstream(spec.name(), upstream, stages,
                        fixture.viewOver(List.of(upstream.inc.targetCollection()), "t_" + slug + "_inc", slug + "-inc",
                                PARTITION, stages),
                        fixture.viewOver(List.of(upstream.whole.targetCollection()), "t_" + slug + "_whole",
                                slug + "-whole", PARTITION, stages)));
            }
            runDownstreams(0);
            for (int step = 1; step <= STEPS; step++) {
                step(step);
            }
            for (Pair pair : pairs) {
                // Nothing left for a whole pass to do: the stored rows, hashes and all, are the whole result
                PassReport again = runner.run(pair.inc);
                assertThat(again.outcome()).as(() -> "a whole pass after the last key-scoped one: " + again + "\n"
                        + describe(pair.name, STEPS, null, null, null)).isEqualTo(PassOutcome.UNCHANGED);
            }
        }

        private void step(int number) {
            int size = gen.between(1, maxBatch);
            List<Applied> batch = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                batch.add(apply(mix.pick(gen)));
            }
            // The events once the batch is done: late lookups see the documents as they are now
            batch.forEach(Applied::event);
            // Now and then a mark that names no keys (a retry, a restart): the pass runs whole among key-scoped ones
            boolean unkeyed = gen.oneIn(8);
            log.add("step " + number + ":" + (unkeyed ? " (and a mark without keys)" : ""));
            batch.forEach(change -> log.add("  " + change));
            for (Pair pair : pairs) {
                pass(pair, number, batch, unkeyed);
            }
            runDownstreams(number);
        }

        /** One pass of a pair: the planned scope for {@code inc}, whole for {@code whole}, the same rows. */
        private void pass(Pair pair, int number, List<Applied> batch, boolean unkeyed) {
            Step step = new Step();
            step.batch = batch;
            step.unkeyed = unkeyed;
            AffectedKeys affected = unkeyed ? UNKEYED : AffectedKeys.none();
            for (Applied change : batch) {
                // As the engine routes changes: only those of the collections the view reads
                if (pair.collections.contains(change.collection)) {
                    affected = affected.union(AffectedKeys.of(pair.shape, change.collection, change.event()));
                }
            }
            step.affected = affected;
            step.plan = PassPlanner.plan(pair.shape, affected, (filter, projection, taker) -> runner.find(pair.inc, filter, projection, taker));
            // As the engine reports a whole pass: with why it could not be key-scoped
            PassReport report = runner.run(pair.inc, step.plan.scope());
            step.report = step.plan.scope() == null ? report.scoped(PassScope.FULL, step.plan.wholeBecause()) : report;
            step.what = () -> describe(pair.name, number, step.affected, step.plan, step.report);
            requireRan(step.report, step.what);
            requireRan(runner.run(pair.whole), step.what);
            if (step.plan.scope() != null) {
                assertThat(step.report.scope()).as(() -> "the planned key scope ran whole (" + step.report.scopeNote()
                        + ")\n" + step.what.get()).isEqualTo(PassScope.KEYS);
                if (!affected.keyQueries().isEmpty()) {
                    tally.note("key-scoped with key queries");
                }
            }
            tally.note(pair.name + " " + step.report.scope());
            if (unkeyed) {
                assertThat(step.report.scope()).as(step.what).isEqualTo(PassScope.FULL);
            } else {
                check.check(pair, step);
            }
            compare(pair.inc, pair.whole, step.what);
        }

        /**
         * The downstream views run whole, as the engine runs them on changes of another view's rows: the
         * one over the key-scoped upstream sees what the one over the whole upstream sees, and so does a
         * fresh view over the key-scoped upstream, run once.
         */
        private void runDownstreams(int number) {
            for (Downstream downstream : downstreams) {
                Supplier<String> what = () -> describe(downstream.name, number, null, null, null);
                requireRan(runner.run(downstream.overInc), what);
                requireRan(runner.run(downstream.overWhole), what);
                tally.note("downstream passes");
                compare(downstream.overInc, downstream.overWhole, what);
                String slug = "fresh_" + downstream.name.replace(' ', '_') + "_" + number;
                ViewDefinition fresh = fixture.viewOver(List.of(downstream.upstream.inc.targetCollection()), "t_" + slug,
                        slug, PARTITION, downstream.stages);
                requireRan(runner.run(fresh), what);
                compare(fresh, downstream.overWhole, what);
            }
        }

        private void requireRan(PassReport report, Supplier<String> what) {
            assertThat(report.outcome()).as(() -> report + "\n" + what.get())
                .isIn(PassOutcome.CHANGED, PassOutcome.UNCHANGED);
        }

        /** What a reader sees of one view equals what it sees of the other: row id by row id, content without engine fields. */
        private void compare(ViewDefinition view, ViewDefinition reference, Supplier<String> what) {
            Map<BsonValue, BsonDocument> rows = rows(view, what);
            Map<BsonValue, BsonDocument> expected = rows(reference, what);
            assertThat(rows).as(() -> "the rows of " + view.id().asString().getValue() + " against "
                    + reference.id().asString().getValue() + ": " + diff(rows, expected) + "\n" + what.get())
                .isEqualTo(expected);
        }

        private Map<BsonValue, BsonDocument> rows(ViewDefinition view, Supplier<String> what) {
            Map<BsonValue, BsonDocument> rows = new HashMap<>();
            TargetRows target = fixture.rows();
            for (BsonDocument row : fixture.readRows(view)) {
                BsonDocument previous = rows.put(row.get(ViewFilter.ROW_FIELD), target.contentOf(row));
                assertThat(previous).as(() -> "a reader of " + view.id().asString().getValue() + " sees two rows of "
                        + json(row) + "\n" + what.get()).isNull();
            }
            return rows;
        }

        // ---- the sources and their changes

        private void sources() {
            int count = gen.between(15, 35);
            for (int i = 0; i < count; i++) {
                orders.insertOne(order(new BsonInt32(nextOrder++)));
            }
            for (int i = 0; i < 6; i++) {
                products.insertOne(product(new BsonString("p" + nextProduct++)));
            }
            // Of another partition, with the same customers and skus
            for (int i = 0; i < 3; i++) {
                orders.insertOne(new BsonDocument("_id", new BsonInt32(1000 + i))
                    .append(partitionField(), new BsonString(OTHER_PARTITION))
                    .append("customer", new BsonString(i == 0 ? "ann" : "bob")).append("amount", new BsonInt32(100))
                    .append("status", new BsonString("open")).append("sku", new BsonString("a")));
            }
            products.insertOne(new BsonDocument("_id", new BsonString("g1"))
                .append(partitionField(), new BsonString(OTHER_PARTITION)).append("sku", new BsonString("a"))
                .append("price", new BsonInt32(1000)));
            orders.find().forEach(order -> initial.add("  " + ORDERS + " " + json(order)));
            products.find().forEach(product -> initial.add("  " + PRODUCTS + " " + json(product)));
        }

        private Applied apply(Kind drawn) {
            Kind kind = drawn;
            if (ids(kind.collection()).isEmpty()) {
                kind = kind.collection().equals(ORDERS) ? Kind.INSERT : Kind.PRODUCT_INSERT;
            }
            return switch (kind) {
                case INSERT -> insert(kind, order(new BsonInt32(nextOrder++)));
                case AMOUNT -> update(kind, Map.of("amount", this::amount));
                case STATUS -> update(kind, Map.of("status", this::status));
                case CUSTOMER -> update(kind, Map.of("customer", this::customer));
                case SKU -> update(kind, Map.of("sku", this::sku));
                case AMOUNT_AND_CUSTOMER -> update(kind, Map.of("amount", this::amount, "customer", this::customer));
                case REPLACE -> replace(kind, this::order);
                case DELETE, PRODUCT_DELETE -> delete(kind);
                case PRODUCT_INSERT -> insert(kind, product(new BsonString("p" + nextProduct++)));
                case PRODUCT_PRICE -> update(kind, Map.of("price", this::price));
                case PRODUCT_SKU -> update(kind, Map.of("sku", this::productSku));
                case PRODUCT_REPLACE -> replace(kind, this::product);
            };
        }

        private Applied insert(Kind kind, BsonDocument document) {
            collection(kind.collection()).insertOne(document.clone());
            return new Applied(this, kind, Operation.INSERT, document.get("_id"), null, document, null, "insertOne", false);
        }

        private Applied update(Kind kind, Map<String, Supplier<@Nullable BsonValue>> fields) {
            BsonValue id = pick(kind.collection());
            BsonDocument before = Objects.requireNonNull(find(kind.collection(), id));
            BsonDocument set = new BsonDocument();
            BsonDocument unset = new BsonDocument();
            // In a fixed order, so a seed draws the same values on every run
            for (String field : new java.util.TreeSet<>(fields.keySet())) {
                // A value it does not have: an update that changes nothing has no event
                BsonValue value = gen.until(() -> fields.get(field).get(), drawn -> !Objects.equals(drawn, before.get(field)));
                if (value == null) {
                    unset.append(field, new BsonString(""));
                } else {
                    set.append(field, value);
                }
            }
            BsonDocument command = new BsonDocument();
            if (!set.isEmpty()) {
                command.append("$set", set);
            }
            if (!unset.isEmpty()) {
                command.append("$unset", unset);
            }
            collection(kind.collection()).updateOne(Filters.eq("_id", id), command);
            BsonDocument after = find(kind.collection(), id);
            UpdatedFields update = new UpdatedFields(List.copyOf(set.keySet()), List.copyOf(unset.keySet()), List.of());
            return new Applied(this, kind, Operation.UPDATE, id, before, after, update, json(command), gen.oneIn(3));
        }

        private Applied replace(Kind kind, Function<BsonValue, BsonDocument> replacement) {
            BsonValue id = pick(kind.collection());
            BsonDocument before = find(kind.collection(), id);
            BsonDocument after = replacement.apply(id);
            collection(kind.collection()).replaceOne(Filters.eq("_id", id), after.clone());
            return new Applied(this, kind, Operation.REPLACE, id, before, after, null, "replaceOne", false);
        }

        private Applied delete(Kind kind) {
            BsonValue id = pick(kind.collection());
            BsonDocument before = find(kind.collection(), id);
            collection(kind.collection()).deleteOne(Filters.eq("_id", id));
            return new Applied(this, kind, Operation.DELETE, id, before, null, null, "deleteOne", false);
        }

        private MongoCollection<BsonDocument> collection(String name) {
            return name.equals(ORDERS) ? orders : products;
        }

        /** The ids of the partition's documents of a collection, in order, so a seed picks the same ones. */
        private List<BsonValue> ids(String collection) {
            List<BsonValue> ids = new ArrayList<>();
            collection(collection).find(Filters.eq(partitionField(), PARTITION)).projection(Projections.include("_id"))
                .sort(Sorts.ascending("_id")).forEach(document -> ids.add(document.get("_id")));
            return ids;
        }

        private BsonValue pick(String collection) {
            return gen.oneOf(ids(collection));
        }

        @Nullable BsonDocument find(String collection, BsonValue id) {
            return collection(collection).find(Filters.eq("_id", id)).first();
        }

        private BsonDocument order(BsonValue id) {
            BsonDocument order = new BsonDocument("_id", id).append(partitionField(), new BsonString(PARTITION));
            set(order, "customer", customer());
            order.append("amount", amount());
            set(order, "status", status());
            set(order, "sku", sku());
            return order;
        }

        private BsonDocument product(BsonValue id) {
            BsonDocument product = new BsonDocument("_id", id).append(partitionField(), new BsonString(PARTITION));
            set(product, "sku", productSku());
            return product.append("price", price());
        }

        private @Nullable BsonValue customer() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(8, () -> new BsonString(gen.oneOf("ann", "bob", "cy", "dee")))
                .or(1, () -> BsonNull.VALUE)
                .or(1, () -> null)
                .pick(gen).get();
        }

        private BsonValue amount() {
            return new BsonInt32(gen.between(1, 50));
        }

        private @Nullable BsonValue status() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(3, () -> new BsonString("open"))
                .or(2, () -> new BsonString("closed"))
                .or(1, () -> null)
                .pick(gen).get();
        }

        private @Nullable BsonValue sku() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(8, () -> new BsonString(gen.oneOf("a", "b", "c", "d", "e")))
                .or(1, () -> BsonNull.VALUE)
                .or(1, () -> null)
                .pick(gen).get();
        }

        private @Nullable BsonValue productSku() {
            return new Weighted<Supplier<@Nullable BsonValue>>()
                .or(10, () -> new BsonString(gen.oneOf("a", "b", "c", "d", "e")))
                .or(1, () -> BsonNull.VALUE)
                .or(1, () -> null)
                .pick(gen).get();
        }

        private BsonValue price() {
            return new BsonInt32(gen.between(1, 9));
        }

        // ---- what a failure says

        private String describe(String view, int step, @Nullable AffectedKeys affected, PassPlanner.@Nullable Plan plan,
                @Nullable PassReport report) {
            StringBuilder text = new StringBuilder();
            text.append(gen).append(", view ").append(view).append(", step ").append(step).append(" of ").append(STEPS)
                .append("\nreplay: nice -n 10 ./mvnw -o -pl materializer-core -am verify -Dsurefire.failIfNoSpecifiedTests=false")
                .append(" -D").append(Seeds.REPLAY).append('=').append(gen.seed()).append(" -Dtest='").append(test).append('\'')
                .append("\npre-images: ").append(ORDERS).append(' ').append(orderPreImages ? "kept" : "none").append(", ")
                .append(PRODUCTS).append(' ').append(productPreImages ? "kept" : "none")
                .append("\nsources at the first runs:\n").append(String.join("\n", initial))
                .append("\nchanges:\n").append(String.join("\n", log));
            if (affected != null) {
                text.append("\naffected: ").append(affected);
            }
            if (plan != null) {
                text.append("\nplan: ").append(plan.scope() == null ? "whole, because " + plan.wholeBecause()
                        : "key scope '" + plan.scope().description() + "', row ids " + plan.scope().rowIds() + ", pipeline "
                                + plan.scope().pipeline().stream().map(stage -> stage.toJson(JSON)).toList());
            }
            if (report != null) {
                text.append("\npass: ").append(report);
            }
            return text.toString();
        }
    }

    // ---- helpers

    /** Sets a field, or removes it for a missing value (null in Java). */
    private static void set(BsonDocument document, String field, @Nullable BsonValue value) {
        if (value == null) {
            document.remove(field);
        } else {
            document.put(field, value);
        }
    }

    private static @Nullable BsonDocument copy(@Nullable BsonDocument document) {
        return document == null ? null : document.clone();
    }

    private static String json(@Nullable BsonDocument document) {
        return document == null ? "none" : document.toJson(JSON);
    }

    /** The rows that differ, by row id: only in one, only in the other, or with other content. */
    private static String diff(Map<BsonValue, BsonDocument> rows, Map<BsonValue, BsonDocument> expected) {
        Map<String, String> differences = new TreeMap<>();
        Set<BsonValue> ids = new LinkedHashSet<>(rows.keySet());
        ids.addAll(expected.keySet());
        for (BsonValue id : ids) {
            BsonDocument row = rows.get(id);
            BsonDocument wanted = expected.get(id);
            if (!Objects.equals(row, wanted)) {
                differences.put(new BsonDocument("id", id).toJson(JSON), json(row) + " where the reference has " + json(wanted));
            }
        }
        return differences.toString();
    }
}
