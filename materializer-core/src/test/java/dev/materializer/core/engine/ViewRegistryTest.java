package dev.materializer.core.engine;

import dev.materializer.core.ViewSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import dev.materializer.core.routing.WatchedFields;
import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import org.bson.BsonDocument;
import org.bson.BsonString;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry's indexes against a brute-force reference: seeded random adds, replacements (also
 * into another partition), removals, invalid views and state changes, after each of which every
 * query answers what a scan of all views answers.
 */
class ViewRegistryTest {

    private static final List<String> SOURCES = List.of("orders", "customers", "products", "revenue");

    private static final List<String> FIELDS = List.of("amount", "customer", "lines.price", "status");

    @Test
    void everyIndexAnswersWhatAScanOfEveryViewAnswers() {
        Seeds.check(200, gen -> {
            ViewRegistry registry = new ViewRegistry("_part");
            Reference reference = new Reference();
            int steps = gen.between(1, 60);
            for (int step = 0; step < steps; step++) {
                String id = "v" + gen.between(0, 15);
                int action = gen.between(0, 9);
                if (action < 5) {
                    ViewDefinition view = view(gen, id);
                    Generation generation = gen.oneIn(2) ? Generation.of(gen.between(1, 1000)) : null;
                    registry.put(view, generation);
                    reference.put(view, generation);
                }
                else if (action < 7) {
                    registry.remove(id);
                    reference.remove(id);
                }
                else if (action < 8) {
                    String partition = "p" + gen.between(0, 4);
                    registry.putInvalid(id, partition, "bad");
                    reference.putInvalid(id, partition);
                }
                else {
                    ViewDefinition known = reference.views.get(id);
                    if (known != null) {
                        ViewState state = gen.oneOf(ViewState.values());
                        registry.setState(known.key(), state, null);
                        reference.states.put(id, state);
                    }
                }
                reference.check(registry, gen);
            }
        });
    }

    @Test
    void viewsOfOneDefinitionInManyPartitionsShareItsParsedPartsUntilTheLastGoes() {
        ViewRegistry registry = new ViewRegistry("_part");
        for (int tenant = 0; tenant < 100; tenant++) {
            registry.put(new ViewDefinition(new BsonString("revenue-" + tenant), "t" + tenant, List.of("orders"),
                    List.of(BsonDocument.parse("{$group: {_id: '$product', n: {$sum: 1}}}")), "revenue",
                    Map.of("orders", List.of("product")), "same-template"), null);
        }
        registry.put(new ViewDefinition(new BsonString("other"), "t0", List.of("orders"),
                List.of(BsonDocument.parse("{$match: {}}")), "other", Map.of(), "other-template"), null);

        assertThat(registry.sharedDefinitions()).isEqualTo(2);
        assertThat(registry.find("t7", "revenue-7").pipeline().get(0))
            .isSameAs(registry.find("t42", "revenue-42").pipeline().get(0));
        assertThat(registry.find("t7", "revenue-7").key()).isEqualTo(new ViewKey("t7", "revenue-7"));

        for (int tenant = 0; tenant < 100; tenant++) {
            registry.remove("revenue-" + tenant);
        }
        assertThat(registry.sharedDefinitions()).isEqualTo(1);
    }

    @Test
    void onlySourcesWhoseKeyScopedViewsNeedAKeyBeforeTheChangeAskForPreImages() {
        ViewRegistry registry = new ViewRegistry("_part");
        registry.put(definition("by-product", List.of("orders"), "{$group: {_id: '$product', n: {$sum: 1}}}"), null);
        registry.put(definition("per-document", List.of("invoices"), "{$project: {total: 1}}"), null);
        registry.put(definition("with-lookup", List.of("lines", "products"),
                "{$lookup: {from: 'products', localField: 'sku', foreignField: 'sku', as: 'product'}}",
                "{$project: {sku: 1, product: 1}}"), null);
        registry.put(definition("sorted", List.of("events"), "{$sort: {at: -1}}", "{$limit: 10}"), null);

        assertThat(registry.needsOldKeys("orders")).as("a group key moves and deletes need the old key").isTrue();
        assertThat(registry.needsOldKeys("invoices")).as("a key in _id comes with every event").isFalse();
        assertThat(registry.needsOldKeys("products")).as("a $lookup's foreign collection").isTrue();
        assertThat(registry.needsOldKeys("events")).as("a view that runs whole anyway").isFalse();
        assertThat(registry.needsOldKeys("unknown")).isFalse();
    }

    private static ViewDefinition definition(String id, List<String> collections, String... stages) {
        return new ViewDefinition(new BsonString(id), "t0", collections,
                java.util.Arrays.stream(stages).map(BsonDocument::parse).toList(), id + "_out", Map.of(), "template-" + id);
    }

    private static ViewDefinition view(Gen gen, String id) {
        List<String> collections = new ArrayList<>(new java.util.LinkedHashSet<>(gen.listOf(1, 3, () -> gen.oneOf(SOURCES))));
        Map<String, List<String>> sourceFields = new LinkedHashMap<>();
        if (gen.oneIn(2)) {
            sourceFields.put(collections.get(0), gen.listOf(0, 2, () -> gen.oneOf(FIELDS)));
        }
        // Equal fingerprints mean equal definitions, as the parser's do.
        String fingerprint = "fp-" + collections + "-target-" + id + "-" + sourceFields;
        return new ViewDefinition(new BsonString(id), "p" + gen.between(0, 4), collections,
                List.of(BsonDocument.parse("{$match: {}}")), "target-" + id, sourceFields, fingerprint);
    }

    /** A plain list of views, scanned whole for every question. */
    private static final class Reference {

        final Map<String, ViewDefinition> views = new HashMap<>();

        final Map<String, Generation> generations = new HashMap<>();

        final Map<String, ViewState> states = new HashMap<>();

        /** The invalid views, with the partition each names. */
        final Map<String, String> invalid = new HashMap<>();

        void put(ViewDefinition view, Generation generation) {
            String id = view.key().id();
            invalid.remove(id);
            views.put(id, view);
            states.put(id, ViewState.PENDING);
            if (generation == null) {
                generations.remove(id);
            }
            else {
                generations.put(id, generation);
            }
        }

        void remove(String id) {
            invalid.remove(id);
            views.remove(id);
            states.remove(id);
            generations.remove(id);
        }

        void putInvalid(String id, String partition) {
            remove(id);
            invalid.put(id, partition);
        }

        void check(ViewRegistry registry, Gen gen) {
            Set<String> partitions = new TreeSet<>();
            Set<String> sources = new TreeSet<>();
            views.values().forEach(view -> {
                partitions.add(view.partition());
                sources.addAll(view.collections());
            });
            assertThat(registry.partitions()).isEqualTo(partitions);
            assertThat(registry.sources()).isEqualTo(sources);
            for (ViewDefinition view : views.values()) {
                assertThat(registry.snapshotOf(view.partition(), view.key().id())).as("one view").isNotNull();
                assertThat(registry.snapshotOf("elsewhere", view.key().id())).isNull();
            }
            for (String partition : List.of("p0", "p1", "p2", "p3", "p4")) {
                assertThat(registry.snapshot(partition)).as("snapshot of %s", partition)
                    .allMatch(view -> view.partition().equals(partition))
                    .extracting(ViewSnapshot::id)
                    .containsAll(views.values().stream().filter(view -> view.partition().equals(partition))
                        .map(view -> view.key().id()).toList());
                assertThat(keys(registry.views(partition))).as("views of %s", partition)
                    .containsExactlyInAnyOrderElementsOf(keys(views.values().stream()
                        .filter(view -> view.partition().equals(partition)).toList()));
            }
            for (String source : SOURCES) {
                List<ViewDefinition> reading = views.values().stream().filter(view -> view.reads(source)).toList();
                assertThat(keys(registry.viewsReading(source))).as("reading %s", source)
                    .containsExactlyInAnyOrderElementsOf(keys(reading));
                Set<String> readingPartitions = new HashSet<>();
                Map<String, Set<String>> materialized = new HashMap<>();
                reading.forEach(view -> {
                    readingPartitions.add(view.partition());
                    if (generations.containsKey(view.key().id())) {
                        materialized.computeIfAbsent(view.partition(), key -> new HashSet<>()).add(view.key().id());
                    }
                });
                assertThat(registry.partitionsReading(source)).isEqualTo(readingPartitions);
                Map<String, Set<String>> actual = new HashMap<>();
                registry.materializedViewsReading(source).forEach((partition, ids) -> actual.put(partition, new HashSet<>(ids)));
                assertThat(actual).as("materialized reading %s", source).isEqualTo(materialized);

                SourceChange change = change(gen);
                Set<String> among = gen.oneIn(3) ? null : new HashSet<>(gen.listOf(0, 3, () -> "p" + gen.between(0, 4)));
                Map<String, Set<String>> expected = new HashMap<>();
                for (ViewDefinition view : reading) {
                    if ((among == null || among.contains(view.partition()))
                            && WatchedFields.of(view.sourceFields().getOrDefault(source, List.of()), "_part")
                                .mayBeTouchedBy(change)) {
                        expected.computeIfAbsent(view.partition(), key -> new HashSet<>()).add(view.key().id());
                    }
                }
                Map<String, Set<String>> marked = new HashMap<>();
                registry.viewsToMark(source, change, among).forEach((partition, ids) -> marked.put(partition, new HashSet<>(ids.keySet())));
                assertThat(marked).as("marked for %s among %s", change, among).isEqualTo(expected);
            }
            Map<ViewState, Integer> counts = new HashMap<>();
            states.values().forEach(state -> counts.merge(state, 1, Integer::sum));
            counts.merge(ViewState.ERRORED, invalid.size(), Integer::sum);
            counts.values().removeIf(count -> count == 0);
            Map<ViewState, Integer> actualCounts = new HashMap<>(registry.countByState());
            actualCounts.values().removeIf(count -> count == 0);
            assertThat(actualCounts).as("counts by state").isEqualTo(counts);
            // The counts of some partitions only (those an instance owns), from the per-partition counters.
            Set<String> owned = new HashSet<>(gen.listOf(0, 4, () -> "p" + gen.between(0, 4)));
            Map<ViewState, Integer> ownedCounts = new HashMap<>();
            states.forEach((id, state) -> {
                if (owned.contains(views.get(id).partition())) {
                    ownedCounts.merge(state, 1, Integer::sum);
                }
            });
            invalid.values().stream().filter(owned::contains)
                .forEach(partition -> ownedCounts.merge(ViewState.ERRORED, 1, Integer::sum));
            Map<ViewState, Integer> actualOwned = new HashMap<>(registry.countByState(owned::contains));
            actualOwned.values().removeIf(count -> count == 0);
            assertThat(actualOwned).as("counts by state of %s", owned).isEqualTo(ownedCounts);
            assertThat(registry.snapshot()).hasSize(views.size() + invalid.size());
        }

        private static SourceChange change(Gen gen) {
            UpdatedFields fields = gen.oneIn(3) ? null : new UpdatedFields(gen.listOf(0, 2, () -> gen.oneOf(FIELDS)),
                    List.of(), List.of());
            return new SourceChange(SourceChange.Operation.UPDATE, null, null, new BsonString("x"), fields, null, null);
        }

        private static List<ViewKey> keys(List<ViewDefinition> views) {
            return views.stream().map(ViewDefinition::key).toList();
        }
    }
}
