package dev.materializer.benchmarks.cost;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

import dev.materializer.benchmarks.cost.CostReport.Result;
import dev.materializer.benchmarks.cost.CostReport.Run;

import static dev.materializer.benchmarks.cost.Figures.median;
import static dev.materializer.benchmarks.cost.Figures.medianValue;
import static dev.materializer.benchmarks.cost.Figures.n;

/** Prints a run as Markdown: the summary against the figures measured before and the goals, then the details. */
final class CostTable {

    private CostTable() {
    }

    static void print(Run run, PrintStream out) {
        out.println("## Cost per change");
        out.println();
        out.printf("%s. Load average (1, 5, 15 min) %s at the start, %s at the end; the run took %d min %d s.%s%n",
                run.machine(), run.loadAtStart(), run.loadAtEnd(), run.took().toMinutes(), run.took().toSecondsPart(),
                run.results().isEmpty() ? "" : String.format(" %d change(s) per scenario, the median shown (with the"
                        + " range when the repeats differ).", run.settings().repeats()));
        out.println();
        printSummary(run, out);
        out.println();
        printDetails(run, out);
        out.println();
        printLegend(run, out);
    }

    private static void printSummary(Run run, PrintStream out) {
        List<Result> perDocument = of(run, Scenario.PerDocument.class);
        List<Result> groupBys = of(run, Scenario.GroupBy.class);
        Result groupBy = groupBys.isEmpty() ? null : groupBys.get(0);
        Result groupByInsert = groupBys.size() < 2 ? null : groupBys.get(1);
        Result chain = first(run, Scenario.ViewOverView.class);
        Result delete = first(run, Scenario.DeleteWithoutPreImage.class);
        Set<CostRow> rows = run.settings().rows();
        out.printf("| measure | before (issue) | %s | goal |%n", run.settings().label());
        out.println("| --- | --- | --- | --- |");
        if (rows.contains(CostRow.PER_DOCUMENT)) {
            printPerDocument(perDocument, out);
        }
        if (rows.contains(CostRow.GROUP_BY)) {
            printGroupBy(groupBy, groupByInsert, out);
        }
        if (rows.contains(CostRow.VIEW_OVER_VIEW)) {
            printViewOverView(chain, out);
        }
        if (rows.contains(CostRow.DELETE)) {
            printDelete(delete, out);
        }
        if (rows.contains(CostRow.DELETE_TENANTS)) {
            printDeleteAcrossTenants(run, out);
        }
        if (rows.contains(CostRow.BURST)) {
            of(run, Scenario.BurstAcrossTenants.class).forEach(burst -> printBurst(burst, out));
        }
        if (rows.contains(CostRow.ROLLING)) {
            RollingTable.printSummary(run.rollingRestarts(), out);
        }
    }

    private static void printPerDocument(List<Result> perDocument, PrintStream out) {
        out.printf("| rows written to the target for a 1-row change, per-document view | 1k view: 1,001 · 10k: 10,001 ·"
                + " 50k: 50,001 | %s | ≤ 10 |%n", series(perDocument, result -> median(result.figures(), Figures::rowsWritten)));
        out.printf("| commands per pass of a 1-row change, per-document view, by collection (change streams left out)"
                + " | 13.4 per run of a small view, 6.0 of them on the views collection | %s | ≤ 5 (about 3: pipeline,"
                + " row write, flip) |%n", series(perDocument, result -> result.figures().get(result.figures().size() - 1)
                    .commandsPerPassByCollection()));
        out.printf("| stored rows read from the target, same change | 50k view: 100,000 | %s | ≤ rows the recompute"
                + " touched |%n", series(perDocument, result -> median(result.figures(), Figures::storedRowsRead)));
        out.printf("| allocated by the engine's threads during the pass, same change | 50k view: 555 MB (11.4 KB per row)"
                + " | %s | O(rows touched); a pass over a 100k-row result < 64 MB |%n", series(perDocument, result -> {
                    long bytes = medianValue(result.figures(), Figures::allocatedNet);
                    return bytes < 0 ? "not measured"
                            : String.format("%s (%.1f KB per row)", Figures.mb(bytes),
                                    bytes / 1024.0 / result.scenario().resultRows());
                }));
    }

    private static void printGroupBy(Result groupBy, Result groupByInsert, PrintStream out) {
        out.printf("| source documents read, group-by over %s docs in %s groups, a change of one document's amount"
                + " | 1M docs: 1,000,001 | %s | ≈ the affected group's documents (≈%s) |%n",
                groupBy == null ? "?" : n(((Scenario.GroupBy) groupBy.scenario()).documentsPerGroup()
                        * (long) groupBy.scenario().resultRows()),
                groupBy == null ? "?" : n(groupBy.scenario().resultRows()),
                measured(groupBy) ? String.format("%s passed the pipeline's leading $match; this server scanned %s for"
                        + " the aggregation; other reads %s (the stream's look-up of the updated document)",
                        median(groupBy.figures(), Figures::sourcePassedLeadingMatch),
                        median(groupBy.figures(), Figures::sourceScanned),
                        median(groupBy.figures(), Figures::sourceOtherReads)) : notMeasured(groupBy),
                groupBy == null ? "1,001" : n(((Scenario.GroupBy) groupBy.scenario()).documentsPerGroup() + 1L));
        out.printf("| source documents read, same view, the insert of one order of an existing customer (what an update"
                + " of an amount is where update events say which fields changed, as this server's and MongoDB's do) | — | %s"
                + " | ≈ the affected group's documents |%n",
                measured(groupByInsert) ? String.format("%s passed the pipeline's leading $match; this server scanned %s"
                        + " for the aggregation", median(groupByInsert.figures(), Figures::sourcePassedLeadingMatch),
                        median(groupByInsert.figures(), Figures::sourceScanned)) : notMeasured(groupByInsert));
    }

    private static void printViewOverView(Result chain, PrintStream out) {
        out.printf("| what one change of acme reaches: view B over view A's target, in acme and globex (%s rows in"
                + " acme's A) | — | %s | a write of ours reaches only its own partition's downstream views |%n",
                chain == null ? "?" : n(chain.scenario().resultRows()),
                measured(chain) ? String.format("passes: acme A %s, acme B %s; globex B %s, globex A %s (globex A runs"
                        + " only where the engine cannot rule out that the update moved a document between partitions);"
                        + " change events on A's target received %s; rows written %s",
                        median(chain.figures(), f -> f.passesOf("acme:A")),
                        median(chain.figures(), f -> f.passesOf("acme:B")),
                        median(chain.figures(), f -> f.passesOf("globex:B")),
                        median(chain.figures(), f -> f.passesOf("globex:A")),
                        median(chain.figures(), f -> f.eventsOn(Scenario.ViewOverView.A_TARGET)),
                        median(chain.figures(), Figures::rowsWritten)) : notMeasured(chain));
    }

    private static void printDelete(Result delete, PrintStream out) {
        out.printf("| a delete without a pre-image, per-document view of %s rows (and globex's view of %s rows over"
                + " the same source) | — | %s | rows written ≤ 10, as any 1-row change |%n",
                delete == null ? "?" : n(delete.scenario().resultRows()), n(CostReport.OTHER_PARTITION_ROWS),
                measured(delete) ? String.format("rows written %s, stored rows read %s; passes: acme %s, globex %s"
                        + " (the event names no partition: it reaches every partition reading the source, and runs"
                        + " those whose per-document views hold its row, or all of them where they are not found)",
                        median(delete.figures(), Figures::rowsWritten), median(delete.figures(), Figures::storedRowsRead),
                        median(delete.figures(), f -> f.passesIn("acme")), median(delete.figures(), f -> f.passesIn("globex")))
                        : notMeasured(delete));
    }

    private static void printDeleteAcrossTenants(Run run, PrintStream out) {
        for (Result delete : of(run, Scenario.DeleteAcrossTenants.class)) {
            int tenants = ((Scenario.DeleteAcrossTenants) delete.scenario()).tenants;
            out.printf("| a delete whose partition is unknown (no pre-image, no storage id), %s tenants sharing one"
                    + " per-document definition | %s whole passes, one per tenant | %s | ≤ 20 commands |%n", n(tenants),
                    n(tenants), measured(delete) ? String.format("commands %s (change streams left out), passes %s (acme %s)",
                            median(delete.figures(), Figures::commandsWithoutStreams),
                            median(delete.figures(), Figures::passCount),
                            median(delete.figures(), f -> f.passesIn(Scenario.ACME))) : notMeasured(delete));
        }
    }

    private static void printBurst(Result burst, PrintStream out) {
        int tenants = ((Scenario.BurstAcrossTenants) burst.scenario()).tenants;
        out.printf("| a burst of one insert in each of %s tenants sharing one group-by definition (one insertMany),"
                + " until every view is on a new generation | — | %s | — |%n", n(tenants),
                measured(burst) ? String.format("commands %s (change streams left out; %s per tenant), %s with the"
                        + " streams; rows written %s; passes %s; views on a new generation %s of %s; write → visible"
                        + " p50 %s, p99 %s, last flip %s (indicative)%s",
                        median(burst.figures(), Figures::commandsWithoutStreams),
                        Figures.medianCommandsPerFlip(burst.figures()),
                        median(burst.figures(), Figures::commands), median(burst.figures(), Figures::rowsWritten),
                        median(burst.figures(), Figures::passCount), median(burst.figures(), Figures::generationsMoved),
                        n(tenants), millis(burst.figures(), Figures::medianFlipMillis),
                        millis(burst.figures(), Figures::p99FlipMillis), millis(burst.figures(), Figures::lastFlipMillis),
                        incompleteNote(burst))
                        : notMeasured(burst));
    }

    /** The bursts across tenants, one row each, with the commands by collection. */
    private static void printBursts(Run run, PrintStream out) {
        List<Result> bursts = of(run, Scenario.BurstAcrossTenants.class);
        if (bursts.isEmpty()) {
            return;
        }
        out.println("### A burst across tenants");
        out.println();
        out.println("| tenants | commands (change streams left out) | per tenant | with the streams' opens and polls"
                + " | by collection, the last burst (streams left out) | rows written to the target | passes (of which"
                + " CHANGED views) | views on a new generation | write → visible, p50 / p99 (indicative) | first insert"
                + " to last flip (indicative) |");
        out.println("| ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
        for (Result burst : bursts) {
            int tenants = ((Scenario.BurstAcrossTenants) burst.scenario()).tenants;
            List<Figures> figures = burst.figures();
            if (figures.isEmpty()) {
                out.printf("| %s | not measured: %s | | | | | | | | |%n", n(tenants), notMeasured(burst));
                continue;
            }
            Figures last = figures.get(figures.size() - 1);
            out.printf("| %s%s | %s | %s | %s | %s | %s | %s (%s) | %s | %s / %s | %s |%n", n(tenants), incompleteNote(burst),
                    median(figures, Figures::commandsWithoutStreams), Figures.medianCommandsPerFlip(figures),
                    median(figures, Figures::commands), last.commandsByCollection(),
                    median(figures, Figures::rowsWritten), median(figures, Figures::passCount),
                    median(figures, Figures::changedPasses), median(figures, Figures::generationsMoved),
                    millis(figures, Figures::medianFlipMillis), millis(figures, Figures::p99FlipMillis),
                    millis(figures, Figures::lastFlipMillis));
        }
        out.println();
        out.println("Each tenant has one group-by view of the same definition over `orders`, into one target, and "
                + Scenario.BurstAcrossTenants.CUSTOMERS * Scenario.BurstAcrossTenants.ORDERS_PER_CUSTOMER
                + " orders; the burst is ONE `insertMany` of one order per tenant (an existing customer), sent once"
                + " the engine is idle with every view ok. The report waits until the engine heard every insert, then"
                + " moves the manual clock one debounce at a time until every view shows a new generation in the"
                + " engine's snapshot and two rounds start no pass (bounded: 10 min). Commands: every command of the"
                + " engine's client in that window. The times run from the `insertMany` to the end of a view's first"
                + " CHANGED pass (`onPassFinished`): write → visible of the median view and of the view at the 99th"
                + " percentile (nearest rank), and of the last; the in-process server's and a shared machine's, and"
                + " without the debounce's wait (the clock is moved at once), so indicative only.");
        out.println();
    }

    /** The median of a time in ms, or "timed out" when a repeat had none. */
    private static String millis(List<Figures> figures, ToLongFunction<Figures> figure) {
        if (figures.stream().anyMatch(f -> figure.applyAsLong(f) < 0)) {
            return "timed out";
        }
        return Figures.medianOf(figures, figure, value -> n(value) + " ms");
    }

    private static void printDetails(Run run, PrintStream out) {
        printBursts(run, out);
        RollingTable.printDetails(run.rollingRestarts(), out);
        if (run.results().isEmpty()) {
            return;
        }
        out.println("### Per scenario");
        out.println();
        out.println("| scenario | rows written to the targets | stored rows read | source documents: passed the leading"
                + " $match / scanned for the aggregation / other reads | commands sent (of which change-stream polls)"
                + " | change events: received / heard, by collection | passes (outcome ×n; rows the engine says it"
                + " wrote and removed) | allocated by the engine's threads: net of idle / raw | pass time (wall) | load"
                + " after |");
        out.println("| --- | ---: | ---: | --- | --- | --- | --- | --- | ---: | --- |");
        for (Result result : run.results()) {
            List<Figures> figures = result.figures();
            if (figures.isEmpty()) {
                out.printf("| %s | not measured: %s | | | | | | | | |%n", result.scenario().name(), notMeasured(result));
                continue;
            }
            Figures last = figures.get(figures.size() - 1);
            ScenarioRun.Sample sample = result.samples().get(result.samples().size() - 1);
            out.printf("| %s%s | %s (%s) | %s | %s / %s / %s | %s: %s (%s) | %s | %s | %s / %s | %s | %s |%n",
                    result.scenario().name(), incompleteNote(result),
                    median(figures, Figures::rowsWritten), last.rowsWrittenParts(),
                    median(figures, Figures::storedRowsRead),
                    median(figures, Figures::sourcePassedLeadingMatch), median(figures, Figures::sourceScanned),
                    median(figures, Figures::sourceOtherReads),
                    median(figures, Figures::commands), last.commandKinds(), median(figures, Figures::changeStreamPolls),
                    last.events(), last.passes(),
                    Figures.medianOf(figures, Figures::allocatedNet, Figures::mb),
                    Figures.medianOf(figures, Figures::allocatedRaw, Figures::mb),
                    Figures.medianOf(figures, f -> Math.round(f.passMillis()), millis -> n(millis) + " ms"),
                    sample.load());
        }
        out.println();
        out.println("Per collection, the last change of each scenario:");
        out.println();
        for (Result result : run.results()) {
            List<Figures> figures = result.figures();
            if (!figures.isEmpty()) {
                out.printf("- %s (%s): %s%n", result.scenario().name(), result.scenario().change(),
                        figures.get(figures.size() - 1).perCollection());
            }
        }
        for (Result result : run.results()) {
            if (result.start() != null) {
                out.printf("- %s: sources written in %.1f s; the engine %s in %.1f s (%s).%n", result.scenario().name(),
                        result.loadSeconds(), !result.start().running() ? "did not say it runs"
                                : result.start().settled() ? "started and settled" : "started but did NOT settle",
                        result.start().seconds(), result.start().described());
            }
        }
    }

    private static void printLegend(Run run, PrintStream out) {
        out.println("What each count counts (per change: from the write of the one source document until the engine"
                + " is quiet again; the engine's client carries a command listener, the server a counting backend):");
        out.println();
        out.println("- **Rows written to the target**: from the replies to the commands the engine's client sent to the"
                + " views' target collections: `insert` n + `update` nModified + `update` upserted + `delete` n (and a"
                + " `findAndModify` that changed a row). A statement that matched a row and left it as it was is not a"
                + " write; statements sent are shown beside.");
        out.println("- **Stored rows read**: documents returned by `find` cursors (first batch and getMores) on the"
                + " target collections, and by `aggregate` cursors on a target that no view reads (an aggregate on a"
                + " view's source is that view's pipeline, counted under source documents).");
        out.println("- **Source documents**: counted by the server (the in-process test server's backend, subclassed):"
                + " *passed the leading $match* is the documents of the sources that pass the leading `$match` stages of"
                + " the `aggregate` commands run on them — what a server examines at best, with an index covering that"
                + " match; *scanned* is what this server examined for those aggregations: the whole collection, or the"
                + " documents a non-unique index gives for the leading `$match` where one serves it (the burst's"
                + " `{_part: 1}` on `orders`), as MongoDB would; *other reads* is what it examined on the sources for"
                + " `find`s, plus what the look-up of an updated document by a change stream examined (`updateLookup`, by"
                + " `_id`: one document, shown per collection as *change-stream look-ups*). Writes to a collection are not reads of it: the documents the server"
                + " examines to apply a write are left out.");
        out.println("- **Commands sent**: every command of the engine's client, by name (`CommandCounter`); the"
                + " change-stream polls among them (getMores of change-stream cursors) go with the wall time, not with"
                + " the change.");
        out.println("- **Change events**: *received* is the documents in the replies to the change-stream cursors on"
                + " the collection; *heard* is what the engine's listener was told (`onChange`).");
        out.println("- **Allocated**: `ThreadMXBean.getThreadAllocatedBytes` summed over the engine's threads"
                + " (`materializer-*`: passes, streams, timer; the driver's calls run on them), plus what the manual"
                + " clock's timers allocated on the report's thread, less what the report's own command listener"
                + " allocated on those threads; *net* also takes off what the engine's threads allocated idle (measured"
                + " for a second before the change) in as much wall time. The server's and the driver's own threads"
                + " are left out. MB = 1024² bytes, KB = 1024 bytes.");
        out.println("- **Pass time**: wall time from the start of the first pass the change caused to the end of the"
                + " last (`onPassStarted`, `onPassFinished`).");
        out.println("- **Passes**: `onPassFinished` reports, by view id (each id starts with its partition).");
        out.printf("- The engine: `MaterializerOptions` defaults (debounce %d ms), max-rows %s, a manual clock moved one"
                + " debounce at a time; no transactions on this server, so every pass writes by generation."
                + " The sources have no pre-images (`changeStreamPreAndPostImages` off): a delete event carries the id only.%n",
                run.options().debounce().toMillis(), n(run.options().maxRows()));
    }

    private static List<Result> of(Run run, Class<? extends Scenario> kind) {
        return run.results().stream().filter(result -> kind.isInstance(result.scenario())).toList();
    }

    private static Result first(Run run, Class<? extends Scenario> kind) {
        List<Result> results = of(run, kind);
        return results.isEmpty() ? null : results.get(0);
    }

    private static boolean measured(Result result) {
        return result != null && !result.samples().isEmpty();
    }

    private static String notMeasured(Result result) {
        if (result == null) {
            return "not run";
        }
        if (result.error() != null) {
            return "not measured: " + result.error();
        }
        return "not measured";
    }

    private static String series(List<Result> results, Function<Result, String> figure) {
        List<String> parts = new ArrayList<>();
        for (Result result : results) {
            String label = n(result.scenario().resultRows());
            parts.add(label + ": " + (result.samples().isEmpty() ? notMeasured(result) : figure.apply(result)
                    + incompleteNote(result)));
        }
        return parts.isEmpty() ? "not run" : String.join(" · ", parts);
    }

    private static String incompleteNote(Result result) {
        Predicate<ScenarioRun.Sample> incomplete = sample -> !sample.complete();
        List<String> notes = new ArrayList<>();
        if (result.start() != null && result.start().running() && !result.start().settled()) {
            notes.add("the start did not settle");
        }
        result.samples().stream().filter(incomplete).forEach(sample -> notes.add("change " + (sample.repeat() + 1)
                + ": " + incomplete(sample)));
        return notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")";
    }

    /** What ran out in a sample, in words. */
    static String incomplete(ScenarioRun.Sample sample) {
        List<String> parts = new ArrayList<>();
        if (!sample.heard()) {
            parts.add("the change (every write of it) was not heard within "
                    + dev.materializer.benchmarks.scale.EngineRun.WAIT.toMinutes() + " min");
        }
        if (!sample.flips().all()) {
            parts.add(String.format("timed out: %,d of %,d views on a new generation", sample.flips().generationsMoved(),
                    sample.flips().views()));
        }
        else if (sample.heard() && !sample.quiet()) {
            parts.add("the engine was not quiet within " + dev.materializer.benchmarks.scale.EngineRun.WAIT.toMinutes()
                    + " min");
        }
        if (!sample.drained()) {
            parts.add("a drain ran out");
        }
        return String.join(", ", parts);
    }
}
