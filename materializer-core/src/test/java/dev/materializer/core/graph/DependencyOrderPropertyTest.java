package dev.materializer.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.core.view.Views;
import org.junit.jupiter.api.Test;

/**
 * Properties of {@link DependencyOrder} over random graphs of views: view {@code i} writes
 * {@code t<i>} and reads {@code base<i>} plus the targets of the views it depends on; ids are random,
 * so their order has nothing to do with the graph's.
 */
class DependencyOrderPropertyTest {

    private static final int CASES = 300;

    @Test
    void inAGraphWithoutCyclesEveryViewRunsAfterTheViewsItReads() {
        Seeds.check(CASES, gen -> {
            List<ViewDefinition> views = graph(gen, true);
            DependencyOrder order = DependencyOrder.of(views);

            assertThat(order.cyclic()).isEmpty();
            assertThat(order.sorted()).containsExactlyInAnyOrderElementsOf(views);
            List<ViewKey> positions = order.sorted().stream().map(ViewDefinition::key).toList();
            upstreams(views).forEach((reader, writers) -> writers
                .forEach(writer -> assertThat(positions.indexOf(writer)).isLessThan(positions.indexOf(reader))));
        });
    }

    @Test
    void eachViewPlacedIsTheSmallestIdAmongTheViewsThenReady() {
        Seeds.check(CASES, gen -> {
            List<ViewDefinition> views = graph(gen, true);
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
        });
    }

    @Test
    void inAnyGraphExactlyTheViewsOnOrBelowACycleAreLeftOut() {
        Seeds.check(CASES, gen -> {
            List<ViewDefinition> views = graph(gen, false);
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
        });
    }

    @Test
    void theGraphsOfThePropertyAboveAreOfBothKinds() {
        // Seed by seed the same graphs it draws: with too few of either kind it would prove little.
        long all = Seeds.forCoverage(CASES).count();
        long cyclic = Seeds.forCoverage(CASES)
            .filter(seed -> !DependencyOrder.of(graph(new Gen(seed), false)).cyclic().isEmpty())
            .count();

        assertThat(100.0 * cyclic / all).as("percent of graphs with a cycle").isGreaterThan(20).isLessThan(80);
    }

    @Test
    void theInputOrderDoesNotChangeTheOutput() {
        Seeds.check(CASES, gen -> {
            List<ViewDefinition> views = graph(gen, false);
            List<ViewDefinition> shuffled = gen.shuffle(new ArrayList<>(views));

            assertThat(DependencyOrder.of(shuffled)).isEqualTo(DependencyOrder.of(views));
        });
    }

    /**
     * A graph of up to 12 views with ids of up to 3 letters; each allowed edge is there with a chance
     * drawn per graph, up to 60%. An acyclic graph has edges only from a lower index to a higher one.
     */
    private static List<ViewDefinition> graph(Gen gen, boolean acyclic) {
        int size = gen.between(0, 12);
        Set<String> ids = new LinkedHashSet<>();
        while (ids.size() < size) {
            ids.add(gen.string(1, 3, "abcde"));
        }
        List<String> idList = List.copyOf(ids);
        int density = gen.between(0, 60);
        List<ViewDefinition> views = new ArrayList<>();
        for (int reader = 0; reader < size; reader++) {
            List<String> sources = new ArrayList<>(List.of("base" + reader));
            for (int writer = 0; writer < size; writer++) {
                boolean allowed = acyclic ? writer < reader : writer != reader;
                if (allowed && gen.between(0, 99) < density) {
                    sources.add("t" + writer);
                }
            }
            views.add(Views.view(idList.get(reader)).reads(sources.toArray(String[]::new)).writes("t" + reader)
                .definition());
        }
        return views;
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
