package dev.materializer.benchmarks.cost;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

import dev.materializer.benchmarks.cost.RollingRestartRun.Logged;
import dev.materializer.benchmarks.cost.RollingRestartRun.Phase;
import dev.materializer.benchmarks.cost.RollingRestartRun.Stage;
import dev.materializer.benchmarks.cost.RollingRestartRun.Step;
import dev.materializer.benchmarks.cost.RollingRestartRun.Variant;
import dev.materializer.benchmarks.scale.CommandCounter;
import dev.materializer.core.PassReport;

import static dev.materializer.benchmarks.cost.Figures.n;

/** Prints the rolling restarts of a run as Markdown: a row each in the summary, a table and the passes in the details. */
final class RollingTable {

    static final String GOAL = "0 runs without writes; with writes only the views they touch";

    /** Passes listed one by one in the details, past which they are counted by kind only. */
    private static final int LISTED = 12;

    private RollingTable() {
    }

    /** One line of progress: the passes, the pipelines and the commands of a variant. */
    static String progress(Variant variant) {
        return String.format("%s passes (%s key-scoped; take-over %s, writes %s, start again %s), %s aggregates on"
                + " orders, %s commands (%s without the streams), %.1f s%s", n(variant.passes().size()),
                n(RollingRestartRun.keyScoped(variant.passes())), n(variant.passesIn(Stage.TAKEOVER).size()),
                n(variant.passesIn(Stage.WRITES).size()), n(variant.passesIn(Stage.BACK).size()),
                n(variant.aggregatesOnOrders()), n(variant.commands()), n(Figures.commandsWithoutStreams(variant.traffic())),
                variant.nanos() / 1e9, note(variant));
    }

    /** The row of each rolling restart in the summary table. */
    static void printSummary(List<RollingRestartRun.Result> results, PrintStream out) {
        if (results.isEmpty()) {
            out.printf("| a rolling restart of 3 instances over T tenants × 3 views, with and without writes | — | not"
                    + " run | %s |%n", GOAL);
        }
        for (RollingRestartRun.Result result : results) {
            List<String> parts = new ArrayList<>();
            for (Variant variant : result.variants()) {
                parts.add(String.format("%s: %s pipeline runs (%s key-scoped; %s aggregates on `orders`), %s commands"
                        + " (%s without the streams)%s", variant.name(), n(variant.passes().size()),
                        n(RollingRestartRun.keyScoped(variant.passes())), n(variant.aggregatesOnOrders()),
                        n(variant.commands()), n(Figures.commandsWithoutStreams(variant.traffic())),
                        variant.writes().any() ? touched(variant) : "", note(variant)));
            }
            if (result.error() != null) {
                parts.add("not measured further: " + result.error());
            }
            out.printf("| %s (stop, take-over, start again, in turn), with and without writes (one order in each of %d"
                    + " tenants while an instance is down, or heard but not applied when it stops)%s | — | %s | %s |%n",
                    result.setup().name(), RollingRestart.WRITES_PER_STEP, result.checkpointWait() ? ""
                            : ", no wait for checkpoints between phases", String.join(" · ", parts), GOAL);
        }
    }

    /** The table of the rolling restarts and the passes they ran, for the details. */
    static void printDetails(List<RollingRestartRun.Result> results, PrintStream out) {
        if (results.isEmpty()) {
            return;
        }
        out.println("### A rolling restart");
        out.println();
        out.println("| tenants | back under | writes | pipeline runs (passes; key-scoped) | by phase: take-over / writes /"
                + " start again | aggregates on `orders` | views the writes touched: views / passes on them / passes on"
                + " others | commands, all instances (change streams left out) | with the streams | by collection"
                + " (streams left out) | wall time, 3 steps (close; start to running) |");
        out.println("| ---: | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: |");
        for (RollingRestartRun.Result result : results) {
            int tenants = result.setup().tenants;
            if (result.variants().isEmpty()) {
                out.printf("| %s%s | not measured: %s | | | | | | | | | |%n", n(tenants), noWait(result), result.error());
                continue;
            }
            for (Variant variant : result.variants()) {
                out.printf("| %s%s | %s | %s | %s (%s) | %s / %s / %s | %s | %s | %s | %s | %s | %.1f s (%s; %s) |%n",
                        n(tenants), noWait(result) + note(variant), variant.ids().words,
                        variant.writes().cell + variant.history("; "),
                        n(variant.passes().size()), n(RollingRestartRun.keyScoped(variant.passes())),
                        n(variant.passesIn(Stage.TAKEOVER).size()), n(variant.passesIn(Stage.WRITES).size()),
                        n(variant.passesIn(Stage.BACK).size()), n(variant.aggregatesOnOrders()),
                        variant.writes().any() ? touchedCell(variant) : "—",
                        n(Figures.commandsWithoutStreams(variant.traffic())), n(variant.commands()),
                        Figures.commandsByCollection(variant.traffic()), variant.nanos() / 1e9,
                        millis(variant, Step::closeNanos), millis(variant, Step::startNanos));
            }
        }
        out.println();
        out.printf("Three instances (`a`, `b`, `c`) on one database, each with a client of its own, all on one manual"
                + " clock; every tenant has 3 views (group-by of customers into `%s`, per-document rows into `%s`, a"
                + " summary into `%s`) and %d orders. The variants run one after the other on one server, each"
                + " restarting every instance once (a new id is a letter never used before). A step: `close()` (the"
                + " instance leaves, its streams save their last checkpoints); one heartbeat on the clock at a time until"
                + " the others see it gone; rounds of 1 s on the clock until two in a row start no pass and every"
                + " instance is idle and caught up, then moves of 6 s until every instance has saved a checkpoint of"
                + " `orders` under the live set with nothing pending, after a phase with writes saved since every"
                + " instance heard them (this ends every phase); with writes, ONE `insertMany` of one order in each"
                + " of %d tenants of the stopped instance, heard by every instance and settled; with"
                + " writes heard, not applied, at the stop, the same `insertMany` just before the `close()`, heard by"
                + " every instance, the clock not moved (so the stopping instance's passes for them have not run and its"
                + " take-over must apply them; counted in the take-over); then `start()` under the id, heartbeats until"
                + " all three see each other, rounds until settled with every view ok. With writes, after the variant,"
                + " the rows of every view they touched are compared with a fresh run of its pipeline (`verify`, not"
                + " counted): *rows in sync*. Pipeline runs: `onPassFinished` reports of every"
                + " instance (a batch of tenants sends one `aggregate` on `orders`, so it counts once there and once per"
                + " view here). Wall time includes the run's own waits (400 ms per round). The first variant runs"
                + " before any event on `orders`: this server's idle change streams carry no resume token, so no"
                + " instance has saved a checkpoint of `orders` yet (MongoDB's idle streams have one); then one order"
                + " is written in one tenant and the clock moved until every instance saved one. The next variant"
                + " still has instances whose stream of `orders` opened without a checkpoint (started from now: they"
                + " cannot tell what came before of the partitions they did not own); the same variant once more has"
                + " every stream resumed from a checkpoint, as on a cluster restarted before. Tenants marked"
                + " \"no checkpoint wait\": the phases end without the wait for checkpoints (the steps as fast as the"
                + " clock allows; the warm-up still waits).%n",
                RollingRestart.Definition.BY_CUSTOMER.target, RollingRestart.Definition.ROWS.target,
                RollingRestart.Definition.SUMMARY.target, RollingRestart.CUSTOMERS * RollingRestart.ORDERS_PER_CUSTOMER,
                RollingRestart.WRITES_PER_STEP);
        out.println();
        for (RollingRestartRun.Result result : results) {
            RollingRestartRun.Start start = result.start();
            if (start != null) {
                out.printf("- %s tenants: sources and views written in %.1f s; instances %s %s in %.1f s (%s passes: the"
                        + " first runs).%n", n(result.setup().tenants), result.loadSeconds(),
                        String.join(", ", RollingRestartRun.FIRST_IDS), !start.running() ? "did not all say they run"
                                : start.settled() ? "started and settled" : "started but did NOT settle",
                        start.seconds(), n(start.passes()));
            }
            RollingRestartRun.WarmUp warmUp = result.warmUp();
            if (warmUp != null) {
                out.printf("- %s tenants: after the variant before any event on `orders`, one order written in one"
                        + " tenant (%s passes, %.1f s)%s.%n", n(result.setup().tenants), n(warmUp.passes()),
                        warmUp.seconds(), warmUp.checkpointed() ? ", then every instance saved a checkpoint of `orders`"
                                : ", but NOT every instance saved a checkpoint of `orders`");
            }
            for (Variant variant : result.variants()) {
                out.printf("- %s tenants, %s:%n", n(result.setup().tenants), variant.name());
                for (Step step : variant.steps()) {
                    out.printf("  - %s → %s%s: %s%n", step.stopped(), step.startedAs(), written(variant, step),
                            phases(step));
                }
                if (!variant.outOfSync().isEmpty()) {
                    out.printf("  - rows NOT in sync with a fresh run: %s%n", String.join(", ", variant.outOfSync()));
                }
                if (variant.error() != null) {
                    out.printf("  - stopped: %s%n", variant.error());
                }
            }
        }
        out.println();
    }

    /** What a step wrote, in words ("" without writes). */
    private static String written(Variant variant, Step step) {
        if (step.written().isEmpty()) {
            return "";
        }
        String wrote = String.format(" (wrote to %d tenants, %d of them %s's", step.written().size(),
                step.writtenOfStopped(), step.stopped());
        if (variant.writes() != RollingRestartRun.Writes.UNAPPLIED) {
            return wrote + ")";
        }
        return wrote + ", before the stop, heard by every instance; " + n(step.beforeStop().size())
                + " passes before the close" + passes(step.beforeStop()) + ")";
    }

    /** Each phase of a step in words: its passes (which views, why) and its commands. */
    private static String phases(Step step) {
        List<String> parts = new ArrayList<>();
        for (Phase phase : step.phases()) {
            parts.add(String.format("%s%s %s passes%s, %s commands (%s without the streams), %.1f s", phase.stage().words,
                    phase.settled() ? "" : " (DID NOT SETTLE)", n(phase.passes().size()), passes(phase.passes()),
                    n(CommandCounter.total(phase.commands())), n(Figures.commandsWithoutStreams(phase.traffic())),
                    phase.nanos() / 1e9));
        }
        return String.join("; ", parts) + String.format("; close %s ms, start to running %s ms; resumed from %s",
                n(Math.round(step.closeNanos() / 1e6)), n(Math.round(step.startNanos() / 1e6)), step.resumesFrom());
    }

    /** The passes one by one (up to {@link #LISTED}), else counted by instance, definition, outcome, scope and note. */
    private static String passes(List<Logged> passes) {
        if (passes.isEmpty()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        if (passes.size() <= LISTED) {
            for (Logged logged : passes) {
                PassReport report = logged.report();
                parts.add(String.format("%s on %s: %s %s%s", report.view().id(), logged.instance(), report.outcome(),
                        report.scope(), report.scopeNote() == null ? "" : " \"" + report.scopeNote() + "\""));
            }
        }
        else {
            Map<String, Integer> kinds = new TreeMap<>();
            for (Logged logged : passes) {
                PassReport report = logged.report();
                kinds.merge(String.format("%s on %s: %s %s%s", RollingRestart.Definition.of(report.view().id()).suffix,
                        logged.instance(), report.outcome(), report.scope(),
                        report.scopeNote() == null ? "" : " \"" + report.scopeNote() + "\""), 1, Integer::sum);
            }
            kinds.forEach((kind, count) -> parts.add(kind + " ×" + count));
        }
        return " (" + String.join(", ", parts) + ")";
    }

    private static String touched(Variant variant) {
        return "; " + touchedCell(variant).replace("views ", "views the writes touched ");
    }

    /** "views 90, passes on them 90, on others 0, rows in sync 90". */
    private static String touchedCell(Variant variant) {
        Set<String> touched = variant.viewsTouched();
        long onTouched = variant.passes().stream().filter(logged -> touched.contains(logged.report().view().id())).count();
        return String.format("views %s, passes on them %s, on others %s, rows in sync %s", n(touched.size()),
                n(onTouched), n(variant.passes().size() - onTouched),
                variant.error() != null ? "not verified" : n(touched.size() - variant.outOfSync().size()));
    }

    private static String millis(Variant variant, ToLongFunction<Step> nanos) {
        List<String> parts = new ArrayList<>();
        variant.steps().forEach(step -> parts.add(n(Math.round(nanos.applyAsLong(step) / 1e6))));
        return String.join(", ", parts) + " ms";
    }

    /** The mark of a rolling restart whose phases did not wait for checkpoints. */
    private static String noWait(RollingRestartRun.Result result) {
        return result.checkpointWait() ? "" : ", no checkpoint wait";
    }

    private static String note(Variant variant) {
        if (variant.error() != null) {
            return " (stopped: " + variant.error() + ")";
        }
        long beforeStop = variant.steps().stream().mapToLong(step -> step.beforeStop().size()).sum();
        String ran = beforeStop == 0 ? "" : " (" + n(beforeStop) + " passes ran before the stop)";
        String wait = variant.steps().stream().allMatch(Step::settled) ? "" : " (a wait ran out)";
        String rows = variant.outOfSync().isEmpty() ? "" : " (" + n(variant.outOfSync().size()) + " views' rows not in sync)";
        return wait + rows + ran;
    }
}
