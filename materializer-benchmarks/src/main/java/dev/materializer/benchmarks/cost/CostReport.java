package dev.materializer.benchmarks.cost;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.materializer.benchmarks.ReportArguments;
import dev.materializer.benchmarks.scale.EngineRun;
import dev.materializer.benchmarks.scale.Meter;
import dev.materializer.core.MaterializerOptions;
import org.jspecify.annotations.Nullable;

/**
 * The cost report: what ONE source change costs the engine, end to end, in counts, per scenario; on
 * an in-process mongo-java-server of its own per scenario (127.0.0.1, a free port), whose backend
 * counts the documents each collection examines. Prints a Markdown table beside the figures the
 * project measured before and the goals. Progress goes to standard error, the report to standard
 * output.
 *
 * <pre>
 * ./mvnw -pl materializer-benchmarks -am -DskipTests package
 * java -cp materializer-benchmarks/target/benchmarks.jar dev.materializer.benchmarks.cost.CostReport \
 *     [--quick] [--sizes 1000,10000,100000] [--group-docs 1000000] [--burst-tenants 1,100,1000]
 *     [--rolling-tenants 1000] [--rolling-unapplied true] [--rolling-checkpoint-wait true] [--repeats 3]
 *     [--only burst,delete-tenants] [--label "now (main @ abc1234)"]
 * </pre>
 *
 * For each scenario: load the data, start the engine, wait until its views have settled, then per
 * repeat: measure the idle engine for a second, make ONE source change, wait until the passes it
 * causes have finished and the engine is quiet, read the counters. The rolling restart
 * ({@link RollingRestartRun}) is measured apart: three instances on one server, each restarted once
 * per variant. A report, not a test: nothing asserts; every wait is bounded ({@link EngineRun#WAIT}) and a wait that runs out is printed.
 */
public final class CostReport {

    /** The rows of the views of the view-over-view and the delete scenarios in acme; globex has fewer. */
    static final int CHAIN_ROWS = 10_000;

    static final int OTHER_PARTITION_ROWS = 1_000;

    private static final String USAGE = "usage: CostReport [--quick] [--sizes 1000,10000,100000] [--group-docs 1000000]"
            + " [--burst-tenants 1,100,1000] [--delete-tenants 100,1000] [--rolling-tenants 1000]"
            + " [--rolling-unapplied true|false] [--rolling-checkpoint-wait true|false] [--repeats 3] [--only "
            + CostRow.names().replace(", ", ",") + "] [--label TEXT]";

    private static final int MAX_SIZE = 10_000_000;

    private static final int MAX_TENANTS = 100_000;

    /** The delete's tenants are named t0001 … t9999 beside acme. */
    private static final int MAX_DELETE_TENANTS = 10_000;

    /**
     * What to measure, from the command line.
     * @param sizes the rows of the per-document views, each a scenario of its own
     * @param groupDocs the source documents of the group-by view's partition
     * @param burstTenants the tenants of the bursts, each a scenario of its own
     * @param rollingTenants the tenants of the rolling restarts, each a measurement of its own
     * @param rollingUnapplied whether the rolling restarts also run the variants whose writes are heard
     *     but not applied when the instance stops ({@code --rolling-unapplied})
     * @param rollingCheckpointWait whether each phase of a rolling restart ends with the wait for fresh
     *     checkpoints ({@code --rolling-checkpoint-wait}; without it, the steps follow as fast as the clock allows)
     * @param repeats changes measured per scenario (the median is printed)
     * @param rows the kinds of scenario to run ({@code --only}; all by default)
     * @param quick whether {@code --quick} was given (small defaults)
     * @param label the heading of the column of this run's figures
     */
    record Settings(List<Integer> sizes, int groupDocs, List<Integer> burstTenants, List<Integer> deleteTenants,
            List<Integer> rollingTenants, boolean rollingUnapplied, boolean rollingCheckpointWait, int repeats,
            Set<CostRow> rows, boolean quick, String label) {

        static Settings parse(String... args) {
            boolean quick = List.of(args).contains("--quick");
            List<Integer> sizes = quick ? List.of(1_000, 10_000) : List.of(1_000, 10_000, 100_000);
            int groupDocs = quick ? 100_000 : 1_000_000;
            List<Integer> burstTenants = quick ? List.of(1, 100) : List.of(1, 100, 1_000);
            List<Integer> deleteTenants = quick ? List.of(100) : List.of(100, 1_000);
            List<Integer> rollingTenants = quick ? List.of(100) : List.of(1_000);
            boolean rollingUnapplied = true;
            boolean rollingCheckpointWait = true;
            int repeats = quick ? 1 : 3;
            Set<CostRow> rows = EnumSet.allOf(CostRow.class);
            String label = "now (this run)";
            for (int index = 0; index < args.length; index++) {
                String arg = args[index];
                switch (arg) {
                    case "--quick" -> {
                        continue;
                    }
                    case "--help", "-h" -> throw new IllegalArgumentException(ReportArguments.USAGE);
                    case "--sizes", "--group-docs", "--burst-tenants", "--delete-tenants", "--rolling-tenants",
                            "--rolling-unapplied", "--rolling-checkpoint-wait", "--repeats", "--only", "--label" -> {
                        // takes a value, below
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + arg + "' (the options are"
                            + " --quick, --sizes, --group-docs, --burst-tenants, --delete-tenants, --rolling-tenants,"
                            + " --rolling-unapplied, --rolling-checkpoint-wait, --repeats, --only and --label)");
                }
                if (index + 1 >= args.length || args[index + 1].startsWith("--")) {
                    throw new IllegalArgumentException(arg + " needs a value, e.g. " + example(arg));
                }
                String value = args[++index];
                switch (arg) {
                    case "--sizes" -> sizes = sizes(arg, value, MAX_SIZE);
                    case "--group-docs" -> groupDocs = number(arg, value, 1, MAX_SIZE);
                    case "--burst-tenants" -> burstTenants = sizes(arg, value, MAX_TENANTS);
                    case "--delete-tenants" -> deleteTenants = sizes(arg, value, MAX_DELETE_TENANTS);
                    case "--rolling-tenants" -> rollingTenants = sizes(arg, value, MAX_TENANTS);
                    case "--rolling-unapplied" -> rollingUnapplied = yesOrNo(arg, value);
                    case "--rolling-checkpoint-wait" -> rollingCheckpointWait = yesOrNo(arg, value);
                    case "--only" -> rows = rows(value);
                    case "--repeats" -> repeats = number(arg, value, 1, 100);
                    default -> {
                        if (value.isBlank()) {
                            throw new IllegalArgumentException("--label needs a text, e.g. " + example(arg));
                        }
                        label = value;
                    }
                }
            }
            return new Settings(List.copyOf(sizes), groupDocs, List.copyOf(burstTenants), List.copyOf(deleteTenants),
                    List.copyOf(rollingTenants), rollingUnapplied, rollingCheckpointWait,
                    repeats, Set.copyOf(rows), quick, label);
        }

        private static List<Integer> sizes(String option, String value, int max) {
            Set<Integer> sizes = new LinkedHashSet<>();
            for (String size : value.split(",", -1)) {
                if (size.isBlank()) {
                    throw new IllegalArgumentException(option + " has an empty entry in '" + value
                            + "': give the sizes comma-separated, e.g. " + example(option));
                }
                sizes.add(number(option, size.trim(), 1, max));
            }
            return new ArrayList<>(sizes);
        }

        private static boolean yesOrNo(String option, String value) {
            return switch (value) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new IllegalArgumentException(option + ": '" + value + "' is neither true nor false,"
                        + " e.g. " + example(option));
            };
        }

        private static Set<CostRow> rows(String value) {
            Set<CostRow> rows = EnumSet.noneOf(CostRow.class);
            for (String row : value.split(",", -1)) {
                if (row.isBlank()) {
                    throw new IllegalArgumentException("--only has an empty entry in '" + value
                            + "': give the rows comma-separated, e.g. " + example("--only"));
                }
                rows.add(CostRow.of(row.trim()));
            }
            return rows;
        }

        private static int number(String option, String value, int min, int max) {
            String digits = value.replace("_", "");
            if (!digits.matches("-?[0-9]+")) {
                throw new IllegalArgumentException(option + ": '" + value + "' is not a whole number (digits only, "
                        + "no units), e.g. " + example(option));
            }
            long parsed = digits.length() > 12 ? Long.MAX_VALUE : Long.parseLong(digits);
            if (parsed < min || parsed > max) {
                throw new IllegalArgumentException(String.format("%s must be between %,d and %,d, was %s", option, min,
                        max, value));
            }
            return (int) parsed;
        }

        private static String example(String option) {
            return switch (option) {
                case "--sizes" -> "--sizes 1000,10000,100000";
                case "--group-docs" -> "--group-docs 1000000";
                case "--burst-tenants" -> "--burst-tenants 100,1000,10000";
                case "--delete-tenants" -> "--delete-tenants 100,1000";
                case "--rolling-tenants" -> "--rolling-tenants 100,1000";
                case "--rolling-unapplied" -> "--rolling-unapplied false";
                case "--rolling-checkpoint-wait" -> "--rolling-checkpoint-wait false";
                case "--only" -> "--only burst";
                case "--repeats" -> "--repeats 3";
                default -> "--label \"now (main @ abc1234)\"";
            };
        }

        /** The scenarios, in the order they run. */
        List<Scenario> scenarios() {
            List<Scenario> scenarios = new ArrayList<>();
            if (rows.contains(CostRow.PER_DOCUMENT)) {
                sizes.forEach(size -> scenarios.add(new Scenario.PerDocument(size)));
            }
            if (rows.contains(CostRow.GROUP_BY)) {
                scenarios.add(new Scenario.GroupBy(groupDocs));
                scenarios.add(new Scenario.GroupBy(groupDocs, true));
            }
            if (rows.contains(CostRow.VIEW_OVER_VIEW)) {
                scenarios.add(new Scenario.ViewOverView(CHAIN_ROWS, OTHER_PARTITION_ROWS));
            }
            if (rows.contains(CostRow.DELETE)) {
                scenarios.add(new Scenario.DeleteWithoutPreImage(CHAIN_ROWS, OTHER_PARTITION_ROWS));
            }
            if (rows.contains(CostRow.DELETE_TENANTS)) {
                deleteTenants.forEach(tenants -> scenarios.add(new Scenario.DeleteAcrossTenants(tenants)));
            }
            if (rows.contains(CostRow.BURST)) {
                burstTenants.forEach(tenants -> scenarios.add(new Scenario.BurstAcrossTenants(tenants)));
            }
            return scenarios;
        }

        /** The rolling restarts, in the order they run (none unless the row is chosen). */
        List<RollingRestart> rollingRestarts() {
            return rows.contains(CostRow.ROLLING) ? rollingTenants.stream().map(RollingRestart::new).toList() : List.of();
        }

        /** The engine's options: the defaults, with max-rows raised to the largest result when it is larger. */
        MaterializerOptions options() {
            int largest = Math.max(CHAIN_ROWS, sizes.stream().mapToInt(Integer::intValue).max().orElse(0));
            MaterializerOptions defaults = EngineRun.baseOptions();
            return largest <= defaults.maxRows() ? defaults : defaults.toBuilder().maxRows(largest).build();
        }
    }

    /**
     * One scenario, measured.
     * @param scenario what was measured
     * @param loadSeconds how long writing its sources took
     * @param start how the engine's start went, null when it failed before
     * @param samples the changes measured
     * @param error why the scenario stopped early, or null
     */
    record Result(Scenario scenario, double loadSeconds, ScenarioRun.@Nullable Start start, List<ScenarioRun.Sample> samples,
            @Nullable String error) {

        List<Figures> figures() {
            return samples.stream().map(sample -> new Figures(scenario, sample)).toList();
        }
    }

    /** The whole run. */
    record Run(Settings settings, String machine, String loadAtStart, String loadAtEnd, Duration took,
            MaterializerOptions options, List<Result> results, List<RollingRestartRun.Result> rollingRestarts) {
    }

    private CostReport() {
    }

    public static void main(String[] args) throws InterruptedException {
        Settings settings = ReportArguments.parseOrExit(args, Settings::parse, USAGE);
        Run run = measure(settings, System.err);
        CostTable.print(run, System.out);
    }

    static Run measure(Settings settings, PrintStream progress) throws InterruptedException {
        long began = System.nanoTime();
        String loadAtStart = Meter.loadAverage();
        String machine = Meter.machine();
        progress.printf("cost report: %s%nload average %s%n", machine, loadAtStart);
        MaterializerOptions options = settings.options();
        List<Result> results = new ArrayList<>();
        for (Scenario scenario : settings.scenarios()) {
            progress.printf("[%s] %s (load %s)%n", elapsed(began), scenario.name(), Meter.loadAverage());
            results.add(measure(scenario, options, settings.repeats(), progress, began));
            System.gc();
        }
        List<RollingRestartRun.Result> rollingRestarts = new ArrayList<>();
        for (RollingRestart rolling : settings.rollingRestarts()) {
            progress.printf("[%s] %s (load %s)%n", elapsed(began), rolling.name(), Meter.loadAverage());
            rollingRestarts.add(measure(rolling, options, settings.rollingUnapplied(), settings.rollingCheckpointWait(),
                    progress, began));
            System.gc();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - began);
        progress.printf("[%s] done%n", elapsed(began));
        return new Run(settings, machine, loadAtStart, Meter.loadAverage(), took, options, results, rollingRestarts);
    }

    /**
     * Every variant of a rolling restart, one after the other on one server: without writes first, those
     * whose writes are not applied at the stop last (when asked for); each phase ends with the wait for
     * fresh checkpoints when asked for.
     */
    private static RollingRestartRun.Result measure(RollingRestart rolling, MaterializerOptions options,
            boolean unapplied, boolean checkpointWait, PrintStream progress, long began) throws InterruptedException {
        List<RollingRestartRun.Variant> variants = new ArrayList<>();
        double loadSeconds = 0;
        RollingRestartRun.Start start = null;
        try (RollingRestartRun run = new RollingRestartRun(rolling, options, checkpointWait)) {
            long loadBegan = System.nanoTime();
            run.load();
            loadSeconds = (System.nanoTime() - loadBegan) / 1e9;
            progress.printf("           loaded in %.1f s; starting instances %s%s%n", loadSeconds,
                    String.join(", ", RollingRestartRun.FIRST_IDS), checkpointWait ? ""
                            : " (no wait for checkpoints between phases)");
            start = run.start();
            progress.printf("           %s in %.1f s (%s passes): %s%n", !start.running() ? "NOT RUNNING"
                    : start.settled() ? "settled" : "DID NOT SETTLE", start.seconds(), Figures.n(start.passes()),
                    start.described());
            if (!start.settled()) {
                return new RollingRestartRun.Result(rolling, loadSeconds, start, null, checkpointWait, variants,
                        "the instances did not " + (start.running() ? "settle" : "say they run") + " within "
                                + EngineRun.WAIT.toMinutes() + " min");
            }
            // Before any event on the orders: no stream has a position to save yet (on this server).
            RollingRestartRun.Variant cold = run.restartEach(RollingRestartRun.Ids.SAME, RollingRestartRun.Writes.NONE);
            variants.add(cold);
            progress.printf("[%s]   %s: %s%n", elapsed(began), cold.name(), RollingTable.progress(cold));
            if (cold.error() != null) {
                return new RollingRestartRun.Result(rolling, loadSeconds, start, null, checkpointWait, variants,
                        cold.error());
            }
            RollingRestartRun.WarmUp warmUp = run.warmUp();
            progress.printf("[%s]   one order written in one tenant: %s passes, %s, %.1f s%n", elapsed(began),
                    Figures.n(warmUp.passes()), warmUp.checkpointed() ? "every instance saved a checkpoint of orders"
                            : "NOT every instance saved a checkpoint of orders", warmUp.seconds());
            for (RollingRestartRun.Plan plan : RollingRestartRun.afterWarmUp(unapplied)) {
                RollingRestartRun.Variant variant = run.restartEach(plan.ids(), plan.writes());
                variants.add(variant);
                progress.printf("[%s]   %s: %s%n", elapsed(began), variant.name(), RollingTable.progress(variant));
                if (variant.error() != null) {
                    return new RollingRestartRun.Result(rolling, loadSeconds, start, warmUp, checkpointWait, variants,
                            variant.error());
                }
            }
            return new RollingRestartRun.Result(rolling, loadSeconds, start, warmUp, checkpointWait, variants, null);
        }
        catch (RuntimeException ex) {
            progress.printf("           FAILED: %s%n", ex);
            return new RollingRestartRun.Result(rolling, loadSeconds, start, null, checkpointWait, variants,
                    ex.toString());
        }
    }

    private static Result measure(Scenario scenario, MaterializerOptions options, int repeats, PrintStream progress,
            long began) throws InterruptedException {
        List<ScenarioRun.Sample> samples = new ArrayList<>();
        double loadSeconds = 0;
        ScenarioRun.Start start = null;
        try (ScenarioRun run = new ScenarioRun(scenario, options)) {
            long loadBegan = System.nanoTime();
            run.load();
            loadSeconds = (System.nanoTime() - loadBegan) / 1e9;
            progress.printf("           loaded in %.1f s; starting the engine%n", loadSeconds);
            start = run.start();
            progress.printf("           %s in %.1f s: %s%n", !start.running() ? "NOT RUNNING"
                    : start.settled() ? "settled" : "DID NOT SETTLE", start.seconds(), start.described());
            if (!start.running()) {
                return new Result(scenario, loadSeconds, start, samples, "the engine did not say it runs within "
                        + EngineRun.WAIT.toMinutes() + " min");
            }
            for (int repeat = 0; repeat < repeats; repeat++) {
                ScenarioRun.Sample sample = run.measure(repeat);
                samples.add(sample);
                Figures figures = new Figures(scenario, sample);
                progress.printf("[%s]   change %d: %s written, %s stored read, source %s passed / %s scanned,"
                        + " %s commands, %s allocated, pass %.0f ms%s%n", elapsed(began), repeat + 1,
                        Figures.n(figures.rowsWritten()), Figures.n(figures.storedRowsRead()),
                        Figures.n(figures.sourcePassedLeadingMatch()), Figures.n(figures.sourceScanned()),
                        Figures.n(figures.commands()), Figures.mb(figures.allocatedNet()), figures.passMillis(),
                        sample.complete() ? "" : " (" + CostTable.incomplete(sample) + ")");
                if (scenario.viewsToFlip() != 0) {
                    progress.printf("           %s passes, %s of %s views on a new generation (%s with a CHANGED pass),"
                            + " write → visible p50 %s ms, p99 %s ms, last flip %s ms after the first write; %s commands"
                            + " without the streams (%s per view)%n",
                            Figures.n(figures.passCount()), Figures.n(figures.generationsMoved()),
                            Figures.n(scenario.viewsToFlip()), Figures.n(figures.changedPasses()),
                            Figures.n(figures.medianFlipMillis()), Figures.n(figures.p99FlipMillis()),
                            Figures.n(figures.lastFlipMillis()), Figures.n(figures.commandsWithoutStreams()),
                            figures.commandsPerFlip());
                }
            }
            return new Result(scenario, loadSeconds, start, samples, null);
        }
        catch (RuntimeException ex) {
            progress.printf("           FAILED: %s%n", ex);
            return new Result(scenario, loadSeconds, start, samples, ex.toString());
        }
    }

    private static String elapsed(long began) {
        long seconds = (System.nanoTime() - began) / 1_000_000_000L;
        return String.format("%d:%02d", seconds / 60, seconds % 60);
    }
}
