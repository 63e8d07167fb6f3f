package dev.materializer.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewKey;
import dev.materializer.core.view.Views;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Properties of {@link DependencyOrder} over random graphs of views: view {@code i} writes
 * {@code t<i>} and reads {@code base<i>} plus the targets of the views it depends on; ids are random,
 * so their order has nothing to do with the graph's.
 */
class DependencyOrderPropertyTest {

    @Property(tries = 300)
    void inAGraphWithoutCyclesEveryViewRunsAfterTheViewsItReads(@ForAll("acyclic") List<ViewDefinition> views) {
        DependencyOrder order = DependencyOrder.of(views);

        assertThat(order.cyclic()).isEmpty();
        assertThat(order.sorted()).containsExactlyInAnyOrderElementsOf(views);
        List<ViewKey> positions = order.sorted().stream().map(ViewDefinition::key).toList();
        upstreams(views).forEach((reader, writers) -> writers
            .forEach(writer -> assertThat(positions.indexOf(writer)).isLessThan(positions.indexOf(reader))));
    }

    @Property(tries = 300)
    void eachViewPlacedIsTheSmallestIdAmongTheViewsThenReady(@ForAll("acyclic") List<ViewDefinition> views) {
        Map<ViewKey, Set<ViewKey>> upstreams = upstreams(views);
        Set<ViewKey> placed = new HashSet<>();

        for (ViewDefinition view : DependencyOrder.of(views).sorted()) {
            String smallestReady = views.stream()
                .filter(candidate -> !placed.contains(candidate.key()))
                .filter(candidate -> placed.containsAll(upstreams.get(candidate.key())))
                .map(candidate -> candidate.key().id())
                .min(String::compareTo)
                .orElseThrow();
            assertThat(view.key().id()).isEqualTo(smallestReady);
            placed.add(view.key());
        }
    }

    @Property(tries = 300)
    void inAnyGraphExactlyTheViewsOnOrBelowACycleAreLeftOut(@ForAll("anyGraph") List<ViewDefinition> views) {
        DependencyOrder order = DependencyOrder.of(views);
        Map<ViewKey, Set<ViewKey>> upstreams = upstreams(views);
        List<ViewKey> positions = order.sorted().stream().map(ViewDefinition::key).toList();

        Set<ViewKey> all = new HashSet<>(positions);
        all.addAll(order.cyclic());
        assertThat(all).hasSize(views.size()).isEqualTo(keys(views));
        assertThat(positions).doesNotHaveDuplicates();
        assertThat(Collections.disjoint(positions, order.cyclic())).as("sorted and cyclic views are apart").isTrue();
        // A sorted view depends only on views sorted before it...
        Map<ViewKey, Integer> position = new HashMap<>();
        positions.forEach(key -> position.put(key, position.size()));
        for (ViewKey reader : positions) {
            for (ViewKey writer : upstreams.get(reader)) {
                assertThat(position.getOrDefault(writer, Integer.MAX_VALUE)).as("%s before %s", writer, reader)
                    .isLessThan(position.get(reader));
            }
        }
        // ...and a view left out waits on another view left out, so following them leads into a cycle
        for (ViewKey left : order.cyclic()) {
            assertThat(upstreams.get(left)).containsAnyElementsOf(order.cyclic());
        }
        // The generator must give both kinds of graph, or the property proves little
        Statistics.collect(order.cyclic().isEmpty() ? "no cycle" : "cycle");
        Statistics.coverage(coverage -> {
            coverage.check("cycle").percentage(percent -> percent > 20);
            coverage.check("no cycle").percentage(percent -> percent > 20);
        });
    }

    @Property(tries = 300)
    void theInputOrderDoesNotChangeTheOutput(@ForAll("anyGraph") List<ViewDefinition> views, @ForAll long seed) {
        List<ViewDefinition> shuffled = new ArrayList<>(views);
        Collections.shuffle(shuffled, new Random(seed));

        assertThat(DependencyOrder.of(shuffled)).isEqualTo(DependencyOrder.of(views));
    }

    @Provide
    Arbitrary<List<ViewDefinition>> acyclic() {
        return graphs(true);
    }

    @Provide
    Arbitrary<List<ViewDefinition>> anyGraph() {
        return graphs(false);
    }

    /** Graphs of up to 12 views; an acyclic graph has edges only from a lower index to a higher one. */
    private static Arbitrary<List<ViewDefinition>> graphs(boolean acyclic) {
        return Arbitraries.integers().between(0, 12).flatMap(size -> Combinators.combine(
                Arbitraries.strings().withCharRange('a', 'e').ofMinLength(1).ofMaxLength(3).list().ofSize(size)
                    .uniqueElements(),
                Arbitraries.integers().between(0, 99).list().ofSize(size * size),
                Arbitraries.integers().between(0, 60))
            .as((ids, dice, density) -> {
                List<ViewDefinition> views = new ArrayList<>();
                for (int reader = 0; reader < size; reader++) {
                    List<String> sources = new ArrayList<>(List.of("base" + reader));
                    for (int writer = 0; writer < size; writer++) {
                        boolean allowed = acyclic ? writer < reader : writer != reader;
                        if (allowed && dice.get(writer * size + reader) < density) {
                            sources.add("t" + writer);
                        }
                    }
                    views.add(Views.view(ids.get(reader)).reads(sources.toArray(String[]::new)).writes("t" + reader)
                        .definition());
                }
                return views;
            }));
    }

    /** For each view, the views whose target it reads (itself excluded). */
    private static Map<ViewKey, Set<ViewKey>> upstreams(List<ViewDefinition> views) {
        Map<ViewKey, Set<ViewKey>> upstreams = new HashMap<>();
        for (ViewDefinition reader : views) {
            Set<ViewKey> writers = new HashSet<>();
            for (ViewDefinition writer : views) {
                if (writer != reader && reader.reads(writer.targetCollection())) {
                    writers.add(writer.key());
                }
            }
            upstreams.put(reader.key(), writers);
        }
        return upstreams;
    }

    private static Set<ViewKey> keys(List<ViewDefinition> views) {
        Set<ViewKey> keys = new HashSet<>();
        views.forEach(view -> keys.add(view.key()));
        return keys;
    }
}
