package dev.materializer.spring.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard and the Prometheus rules in {@code docs/} use only names the starter
 * exports, so a renamed meter fails here rather than leaving a panel empty or an alert silent.
 *
 * <p>{@code micrometer-registry-prometheus} is not among the project's dependencies (nor in the
 * offline repository), so the exported names are derived from the meters the starter registers
 * with the convention {@code docs/operations.md} states for Micrometer's Prometheus registry: dots
 * become underscores, the base unit is appended unless the name ends with it, counters end in
 * {@code _total}, and a timer becomes {@code _seconds_count}, {@code _seconds_sum} and
 * {@code _seconds_max}. The table of operations.md is checked against the same derivation.
 */
class PrometheusFilesTests {

    private static final Path DOCS = Path.of("..", "docs");

    private static final Pattern METRIC = Pattern.compile("\\bmaterializer_[a-z0-9_]+");

    @Test
    void everyNameTheRulesUseIsExported() throws IOException {
        Set<String> used = namesIn(ruleExpressions());
        assertThat(used).as("the rules use materializer meters").isNotEmpty();
        assertThat(exported()).containsAll(used);
    }

    @Test
    void everyNameTheDashboardUsesIsExported() throws IOException {
        Set<String> used = namesIn(dashboardExpressions());
        assertThat(used).isNotEmpty();
        assertThat(exported()).containsAll(used);
    }

    @Test
    void theDashboardShowsEveryMeterOfTheStarter() throws IOException {
        Set<String> used = namesIn(dashboardExpressions());
        Set<String> families = new TreeSet<>();
        for (String name : exported()) {
            // A timer is on the dashboard when any of its series is.
            families.add(name.replaceAll("_seconds_(count|sum|max)$", "_seconds"));
        }
        Set<String> shown = new TreeSet<>();
        used.forEach(name -> shown.add(name.replaceAll("_seconds_(count|sum|max)$", "_seconds")));
        assertThat(shown).containsAll(families);
    }

    @Test
    void theNamesInOperationsAreExported() throws IOException {
        Set<String> used = namesIn(List.of(Files.readString(DOCS.resolve("operations.md"))));
        assertThat(used).isNotEmpty();
        assertThat(exported()).containsAll(used);
    }

    @Test
    void theDerivationMatchesTheTableOfOperations() {
        assertThat(exported()).contains("materializer_views", "materializer_streams_open",
                "materializer_streams_watched",                 "materializer_passes_in_flight", "materializer_lag_seconds", "materializer_pass_seconds_count",
                "materializer_pass_seconds_sum", "materializer_pass_seconds_max", "materializer_changes_total",
                "materializer_routing_broadcast_total",
                "materializer_rows_written_total", "materializer_rows_removed_total",
                "materializer_reconcile_drift_total", "materializer_reconcile_views_total");
    }

    /** The names the starter's meters are exported under, once bound and the engine runs. */
    static Set<String> exported() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RecordingMaterializer engine = new RecordingMaterializer();
        engine.setSnapshot(Snapshots.running());
        MaterializerMetricsListener listener = new MaterializerMetricsListener(registry, () -> engine);
        listener.onStateChanged(dev.materializer.core.EngineState.RUNNING, null);
        new MaterializerMeterBinder(engine, new MaterializerLag(() -> engine)).bindTo(registry);
        Set<String> names = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            names.addAll(prometheusNames(meter));
        }
        return names;
    }

    private static List<String> prometheusNames(Meter meter) {
        String base = meter.getId().getName().replace('.', '_');
        String unit = meter.getId().getBaseUnit();
        if (meter instanceof Timer) {
            String seconds = base + "_seconds";
            return List.of(seconds + "_count", seconds + "_sum", seconds + "_max");
        }
        String withUnit = (unit == null || base.endsWith("_" + unit)) ? base : base + "_" + unit;
        if (meter instanceof Counter || meter instanceof FunctionCounter) {
            return List.of(withUnit + "_total");
        }
        assertThat(meter).as(meter.getId().getName()).isInstanceOf(Gauge.class);
        return List.of(withUnit);
    }

    private static List<String> ruleExpressions() throws IOException {
        Map<String, Object> rules = new Yaml().load(Files.readString(DOCS.resolve("prometheus/materializer-rules.yml")));
        List<String> expressions = new ArrayList<>();
        for (Object group : (List<?>) rules.get("groups")) {
            for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
                Object expr = ((Map<?, ?>) rule).get("expr");
                assertThat(expr).as("the expr of %s", rule).isNotNull();
                expressions.add(expr.toString());
            }
        }
        return expressions;
    }

    private static List<String> dashboardExpressions() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build()
            .readTree(Files.readString(DOCS.resolve("grafana/materializer-dashboard.json")));
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                expressions.add(target.get("expr").asString());
            }
        }
        for (JsonNode variable : dashboard.get("templating").get("list")) {
            expressions.add(variable.get("definition").asString());
        }
        assertThat(expressions).isNotEmpty();
        return expressions;
    }

    private static Set<String> namesIn(List<String> texts) {
        Set<String> names = new TreeSet<>();
        for (String text : texts) {
            Matcher matcher = METRIC.matcher(text);
            while (matcher.find()) {
                names.add(matcher.group());
            }
        }
        return names;
    }
}
