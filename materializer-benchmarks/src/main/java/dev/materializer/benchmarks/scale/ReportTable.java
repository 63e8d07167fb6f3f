package dev.materializer.benchmarks.scale;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

import dev.materializer.benchmarks.scale.ScaleReport.AtSize;
import dev.materializer.benchmarks.scale.ScaleReport.Run;

/** Prints a run as Markdown: the summary against the previous engine and the goals, then the details. */
final class ReportTable {

    private ReportTable() {
    }

    static void print(Run run, PrintStream out) {
        List<AtSize> sizes = run.sizes();
        out.println("## Scale report");
        out.println();
        out.printf("%s. Load average (1, 5, 15 min) %s at the start, %s at the end; the run took %d min %d s.%n",
                run.machine(), run.loadAtStart(), run.loadAtEnd(), run.took().toMinutes(), run.took().toSecondsPart());
        out.printf("Sizes: %s (tenants × %d views, one source); first catch-up at %s views; lane marks %s at %s views.%n",
                describeSizes(run), run.settings().viewsPerTenant(), thousands(run.catchUp().views()),
                thousands(run.lanes().marks()), thousands(run.lanes().views()));
        out.println();
        out.println("| measure | before (previous engine) | now (this run) | goal |");
        out.println("| --- | --- | --- | --- |");
        out.printf("| CPU per routed event, one tenant, 3k → 30k views | 72 µs → 952 µs (×13) | %s%s | ≤ 5 µs, flat (≤ ×2 from 3k to 30k) |%n",
                series(sizes, size -> size.routing() != null && size.routing().measured(),
                        size -> size.routing().cpuMicrosPerEvent(), "%.2f µs"),
                ratio(sizes, 3000, 30000, size -> size.routing() != null && size.routing().measured(),
                        size -> size.routing().cpuMicrosPerEvent(), "3k → 30k"));
        out.printf("| a restart that runs nothing, 1k×3 → 10k×3 views | 0.29 s → 34 s CPU (×119) | %s CPU%s; passes run: %s | O(views), < 5 s for 10k×5 |%n",
                seriesBy(sizes, size -> thousands(size.tenants()) + "×" + run.settings().viewsPerTenant(),
                        size -> size.restart().completed(), size -> size.restart().processCpuSeconds(), "%.2f s"),
                ratio(sizes, 1000 * run.settings().viewsPerTenant(), 10000 * run.settings().viewsPerTenant(),
                        size -> size.restart().completed(), size -> size.restart().processCpuSeconds(),
                        "1k×" + run.settings().viewsPerTenant() + " → 10k×" + run.settings().viewsPerTenant()),
                joined(sizes, size -> String.valueOf(size.restart().passesRun())));
        out.printf("| registering one view live, at 3k → 30k views | 1.1 → 9.5 ms | %s%s engine CPU (median of %d) | O(1) |%n",
                series(sizes, size -> size.registration() != null && size.registration().completed(),
                        size -> size.registration().median().engineCpuMillis(), "%.2f ms"),
                ratio(sizes, 3000, 30000, size -> size.registration() != null && size.registration().completed(),
                        size -> size.registration().median().engineCpuMillis(), "3k → 30k"),
                run.settings().repeats());
        AtSize largest = sizes.isEmpty() ? null : sizes.get(sizes.size() - 1);
        out.printf("| idle heap per view | ≈5.0 KB | %s | ≤ 1.5 KB |%n", largest == null ? "not measured"
                : String.format("%.2f KB at %s views (%s)", largest.heap().bytesPerView() / 1024, thousands(largest.views()),
                        joined(sizes, size -> thousands(size.views()) + ": "
                                + String.format("%.2f KB", size.heap().bytesPerView() / 1024))));
        LaneTasks.Result lanes = run.lanes();
        out.printf("| lane tasks queued for one partition during one long pass | 9,002 | %s | ≤ 2 per partition |%n",
                lanes.error().isEmpty()
                        ? String.format("%d (most in flight, %s marks, %s views)%s", lanes.maxInFlight(),
                                thousands(lanes.marks()), thousands(lanes.views()), lanes.completed() ? "" : "; did not drain")
                        : "not measured: " + lanes.error());
        CatchUpQueue.Result catchUp = run.catchUp();
        out.printf("| passes queued by the first catch-up of 10k views | 9,423 | %s | bounded |%n", catchUp.started()
                ? String.format("%s tasks in flight at most (rebalances and passes; %s views in %s partitions)%s",
                        thousands(Math.max(catchUp.maxInFlightAtStart(), catchUp.maxInFlight())), thousands(catchUp.views()),
                        thousands(catchUp.tenants()), catchUp.maxCatchUpsRunning() < 0 ? ""
                                : String.format("; catch-ups in the lanes at once %s, waiting their turn %s (the engine's count)",
                                        thousands(catchUp.maxCatchUpsRunning()), thousands(catchUp.maxCatchUpsWaiting())))
                : "not measured: the engine did not start");
        ViewsIndex.Result index = sizes.isEmpty() ? null : sizes.get(0).index();
        out.printf("| every view run queries the views collection by partition | no index | %s | index-backed |%n",
                index == null ? "not measured"
                        : (index.partitionIndexed() ? "index on the partition field" : "no index on the partition field")
                                + " (" + String.join(", ", index.indexes()) + ")");
        out.println();
        printDetails(run, out);
    }

    private static void printDetails(Run run, PrintStream out) {
        out.println("### Details");
        out.println();
        out.println("| views | load before | restart CPU: process / engine threads | restart wall | passes at restart"
                + " | most tasks in flight at start | commands at restart | heap per view | register: engine CPU / process CPU / wall"
                + " | commands per register | routing CPU per event | allocated per event | events routed |");
        out.println("| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (AtSize size : run.sizes()) {
            RestartCost.Result restart = size.restart();
            LiveRegistration.Result registration = size.registration();
            RoutingCost.Result routing = size.routing();
            out.printf("| %s (%s×%d) | %s | %.2f s / %.2f s%s | %.2f s | %d | %s | %s | %.2f KB | %s | %s | %s | %s | %s |%n",
                    thousands(size.views()), thousands(size.tenants()), run.settings().viewsPerTenant(), size.loadBefore(),
                    restart.processCpuSeconds(), restart.engineCpuSeconds(), restart.completed() ? "" : " (timed out)",
                    restart.wallSeconds(), restart.passesRun(), thousands(restart.maxInFlight()),
                    CommandCounter.describe(restart.commands()), size.heap().bytesPerView() / 1024,
                    registration == null || !registration.completed() ? "timed out"
                            : String.format("%.2f (raw %.2f) / %.2f / %.1f ms", registration.median().engineCpuMillis(),
                                    registration.median().rawEngineCpuMillis(), registration.median().processCpuMillis(),
                                    registration.median().wallMillis()),
                    registration == null ? "" : CommandCounter.describe(registration.lastCommands()),
                    routing == null || !routing.measured() ? "not measured" : String.format("%.2f µs", routing.cpuMicrosPerEvent()),
                    routing == null || !routing.measured() ? "" : String.format("%.0f B", routing.bytesPerEvent()),
                    routing == null ? "" : thousands(routing.events()));
        }
        out.println();
        out.printf("- Fixed heap of an engine with no view: %.0f KB (taken off before dividing by the views).%n",
                run.fixedHeap() / 1024.0);
        LaneTasks.Result lanes = run.lanes();
        out.printf("- Lane tasks: %s marks of tenant 0 while its pass was held; most tasks in flight %d; passes after"
                + " the release %d.%n", thousands(lanes.marks()), lanes.maxInFlight(), lanes.passesAfterRelease());
        CatchUpQueue.Result catchUp = run.catchUp();
        out.printf("- First catch-up: %s views in %s partitions, no checkpoint; most tasks in flight %s during the start"
                + " (until drained%s, clock still), %s over %d steps of the clock past the longest debounce; %s view runs"
                + " started before the engine was stopped; catch-ups the engine said were in its lanes at once %s, waiting"
                + " %s.%n", thousands(catchUp.views()), thousands(catchUp.tenants()),
                thousands(catchUp.maxInFlightAtStart()),
                catchUp.drainedAtStart() ? "" : ", which it had not within " + CatchUpQueue.START_WINDOW.toSeconds() + " s",
                thousands(catchUp.maxInFlight()), catchUp.steps(), thousands(catchUp.passesStarted()),
                catchUp.maxCatchUpsRunning() < 0 ? "(not reported by this engine)" : thousands(catchUp.maxCatchUpsRunning()),
                catchUp.maxCatchUpsWaiting() < 0 ? "(not reported)" : thousands(catchUp.maxCatchUpsWaiting()));
        out.println("- Passes are view runs (the listener's onPassStarted). Process CPU counts every thread of the JVM: the engine, the driver and the in-process server"
                + " (which scans a whole collection for most queries). Engine threads are those named `materializer-*`."
                + " A registration's engine CPU is less the engine threads' idle CPU (the streams' polling) in as much wall"
                + " time; raw is as measured. KB = 1024 bytes.");
    }

    private static String describeSizes(Run run) {
        List<String> parts = new ArrayList<>();
        run.sizes().forEach(size -> parts.add(thousands(size.views()) + " (" + thousands(size.tenants()) + "×"
                + run.settings().viewsPerTenant() + ")"));
        return String.join(", ", parts);
    }

    private static String series(List<AtSize> sizes, Predicate<AtSize> measured,
            ToDoubleFunction<AtSize> value, String format) {
        return seriesBy(sizes, size -> thousands(size.views()), measured, value, format);
    }

    /** "1,000: 3 µs · 30,000: 90 µs (×30 from the first to the last)". */
    private static String seriesBy(List<AtSize> sizes, Function<AtSize, String> label,
            Predicate<AtSize> measured, ToDoubleFunction<AtSize> value, String format) {
        List<String> parts = new ArrayList<>();
        Double first = null;
        Double last = null;
        for (AtSize size : sizes) {
            if (!measured.test(size)) {
                parts.add(label.apply(size) + ": not measured");
                continue;
            }
            double figure = value.applyAsDouble(size);
            parts.add(label.apply(size) + ": " + String.format(format, figure));
            if (first == null) {
                first = figure;
            }
            last = figure;
        }
        String text = String.join(" · ", parts);
        if (first != null && last != null && sizes.size() > 1 && first > 0) {
            text += String.format(" (×%.1f)", last / first);
        }
        return text;
    }

    /** "; 3k → 30k ×4.1" when both sizes were measured, else nothing. */
    private static String ratio(List<AtSize> sizes, int from, int to, Predicate<AtSize> measured,
            ToDoubleFunction<AtSize> value, String label) {
        AtSize first = null;
        AtSize last = null;
        for (AtSize size : sizes) {
            if (size.views() == from && measured.test(size)) {
                first = size;
            }
            if (size.views() == to && measured.test(size)) {
                last = size;
            }
        }
        if (first == null || last == null || sizes.size() <= 2 || value.applyAsDouble(first) <= 0) {
            return "";
        }
        return String.format("; %s ×%.1f", label, value.applyAsDouble(last) / value.applyAsDouble(first));
    }

    private static String joined(List<AtSize> sizes, Function<AtSize, String> part) {
        List<String> parts = new ArrayList<>();
        sizes.forEach(size -> parts.add(part.apply(size)));
        return String.join(", ", parts);
    }

    static String thousands(long value) {
        return String.format("%,d", value);
    }
}
