package dev.materializer.benchmarks.scale;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.materializer.benchmarks.ReportArguments;
import dev.materializer.core.MaterializerOptions;
import org.jspecify.annotations.Nullable;

/**
 * The scale report: measures the engine at several numbers of views, on an in-process
 * mongo-java-server of its own (127.0.0.1, a free port, one server per measurement), and prints a
 * Markdown table of the figures beside those of the previous engine and the goals. Progress goes
 * to standard error, the report to standard output.
 *
 * <pre>
 * ./mvnw -pl materializer-benchmarks -am -DskipTests package
 * java -cp materializer-benchmarks/target/benchmarks.jar dev.materializer.benchmarks.scale.ScaleReport \
 *     [--quick] [--sizes 1000,3000,5000,10000,30000,50000] [--views-per-tenant 5] [--catch-up-views 10000]
 *     [--lane-views 1000] [--lane-marks 2000] [--repeats 3] [--routing-cpu-seconds 1]
 * </pre>
 *
 * A report, not a test: nothing asserts; every wait is bounded ({@link EngineRun#WAIT}) and a wait
 * that runs out is printed as such.
 */
public final class ScaleReport {

    private static final List<String> OPTIONS = List.of("--sizes", "--views-per-tenant", "--catch-up-views",
            "--lane-views", "--lane-marks", "--repeats", "--routing-cpu-seconds");

    /** What to measure, from the command line. */
    record Settings(List<Integer> sizes, int viewsPerTenant, int catchUpViews, int laneViews, int laneMarks, int repeats,
            double routingCpuSeconds, boolean quick) {

        static Settings parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            List<Integer> sizes = quick ? List.of(1000, 3000) : List.of(1000, 3000, 5000, 10000, 30000, 50000);
            int viewsPerTenant = 5;
            int catchUpViews = quick ? 1000 : 10000;
            int laneViews = 1000;
            int laneMarks = quick ? 200 : 2000;
            int repeats = quick ? 1 : 3;
            double routingCpuSeconds = quick ? 0.3 : 1.0;
            for (int index = 0; index < args.length; index++) {
                String arg = args[index];
                if (arg.equals("--quick")) {
                    continue;
                }
                if (arg.equals("--help") || arg.equals("-h")) {
                    throw new IllegalArgumentException(ReportArguments.USAGE);
                }
                if (!OPTIONS.contains(arg)) {
                    throw new IllegalArgumentException("unknown option " + arg);
                }
                if (index + 1 >= args.length) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                String value = args[++index];
                switch (arg) {
                    case "--sizes" -> {
                        sizes = new ArrayList<>();
                        for (String size : value.split(",")) {
                            sizes.add(positive(arg, size.trim()));
                        }
                    }
                    case "--views-per-tenant" -> viewsPerTenant = positive(arg, value);
                    case "--catch-up-views" -> catchUpViews = positive(arg, value);
                    case "--lane-views" -> laneViews = positive(arg, value);
                    case "--lane-marks" -> laneMarks = positive(arg, value);
                    case "--repeats" -> repeats = positive(arg, value);
                    case "--routing-cpu-seconds" -> routingCpuSeconds = Double.parseDouble(value);
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
            }
            return new Settings(List.copyOf(sizes), viewsPerTenant, catchUpViews, laneViews, laneMarks, repeats,
                    routingCpuSeconds, quick);
        }

        private static int positive(String option, String value) {
            int parsed = Integer.parseInt(value.replace("_", ""));
            if (parsed < 1 || parsed > 1_000_000) {
                throw new IllegalArgumentException(option + " must be between 1 and 1000000, was " + value);
            }
            return parsed;
        }

        int tenantsFor(int views) {
            return Math.max(1, views / viewsPerTenant);
        }
    }

    /** Everything measured at one number of views. */
    record AtSize(int views, int tenants, String loadBefore, String loadAfter, RestartCost.Result restart,
            IdleHeap.Result heap, LiveRegistration.@Nullable Result registration, RoutingCost.@Nullable Result routing,
            ViewsIndex.Result index) {
    }

    /** The whole run. */
    record Run(Settings settings, String machine, String loadAtStart, String loadAtEnd, Duration took, long fixedHeap,
            List<AtSize> sizes, LaneTasks.Result lanes, CatchUpQueue.Result catchUp) {
    }

    private static final String USAGE = "usage: ScaleReport [--quick] [--sizes 1000,3000,5000,10000,30000,50000]"
            + " [--views-per-tenant 5] [--catch-up-views 10000] [--lane-views 1000] [--lane-marks 2000] [--repeats 3]"
            + " [--routing-cpu-seconds 1]";

    private ScaleReport() {
    }

    public static void main(String[] args) throws InterruptedException {
        Settings settings = ReportArguments.parseOrExit(args, Settings::parse, USAGE);
        Run run = measure(settings, System.err);
        ReportTable.print(run, System.out);
    }

    static Run measure(Settings settings, PrintStream progress) throws InterruptedException {
        long began = System.nanoTime();
        String loadAtStart = Meter.loadAverage();
        String machine = Meter.machine();
        progress.printf("scale report: %s%nload average %s%n", machine, loadAtStart);
        MaterializerOptions base = EngineRun.baseOptions();

        progress.printf("[%s] an engine with no view (the fixed heap of an engine)%n", elapsed(began));
        long fixedHeap = atSize(base, new Fleet(0, settings.viewsPerTenant(), base), settings, progress, began, 0, true)
            .heap().engineBytes();

        List<AtSize> sizes = new ArrayList<>();
        for (int views : settings.sizes()) {
            Fleet fleet = new Fleet(settings.tenantsFor(views), settings.viewsPerTenant(), base);
            progress.printf("[%s] %s%n", elapsed(began), fleet);
            sizes.add(atSize(base, fleet, settings, progress, began, fixedHeap, false));
        }

        int laneTenants = settings.tenantsFor(settings.laneViews());
        progress.printf("[%s] lane tasks: %d marks of one tenant during its held pass, %d×%d views%n", elapsed(began),
                settings.laneMarks(), laneTenants, settings.viewsPerTenant());
        LaneTasks.Result lanes = LaneTasks.measure(base, laneTenants, settings.viewsPerTenant(), settings.laneMarks());
        progress.printf("           max in flight %d%n", lanes.maxInFlight());

        int catchUpTenants = settings.tenantsFor(settings.catchUpViews());
        progress.printf("[%s] first catch-up: %d×%d views, no checkpoint%n", elapsed(began), catchUpTenants,
                settings.viewsPerTenant());
        CatchUpQueue.Result catchUp = CatchUpQueue.measure(base, catchUpTenants, settings.viewsPerTenant());
        progress.printf("           max in flight %d at start%s, %d once the clock moves; catch-ups in the lanes at most %s%n",
                catchUp.maxInFlightAtStart(), catchUp.drainedAtStart() ? "" : " (not drained within the window)",
                catchUp.maxInFlight(), catchUp.maxCatchUpsRunning() < 0 ? "(not reported)" : catchUp.maxCatchUpsRunning());

        Duration took = Duration.ofNanos(System.nanoTime() - began);
        progress.printf("[%s] done%n", elapsed(began));
        return new Run(settings, machine, loadAtStart, Meter.loadAverage(), took, fixedHeap, sizes, lanes, catchUp);
    }

    /** One server, one fleet, one engine: restart, heap, index, then registration and routing on the running engine. */
    private static AtSize atSize(MaterializerOptions base, Fleet fleet, Settings settings, PrintStream progress,
            long began, long fixedHeap, boolean heapOnly) throws InterruptedException {
        String loadBefore = Meter.loadAverage();
        try (InProcessMongo mongo = new InProcessMongo()) {
            Setup.prepare(mongo, fleet, true);
            try (EngineRun run = new EngineRun(mongo, base)) {
                long heapBefore = IdleHeap.before(fleet.views());
                RestartCost.Result restart = RestartCost.measure(run, fleet.views());
                progress.printf("           restart: %.2f s CPU (engine threads %.2f s), %.2f s wall, %d passes%s%n",
                        restart.processCpuSeconds(), restart.engineCpuSeconds(), restart.wallSeconds(),
                        restart.passesRun(), restart.completed() ? "" : " (DID NOT COMPLETE)");
                IdleHeap.Result heap = IdleHeap.after(heapBefore, fleet.views(), fixedHeap);
                progress.printf("           heap: %.0f KiB by the engine%s%n", heap.engineBytes() / 1024.0,
                        heapOnly ? "" : String.format(", %.2f KiB per view", heap.bytesPerView() / 1024));
                ViewsIndex.Result index = ViewsIndex.inspect(run.database, run.options.viewsCollection(),
                        run.options.partitionField());
                if (heapOnly) {
                    return new AtSize(0, 0, loadBefore, Meter.loadAverage(), restart, heap, null, null, index);
                }
                progress.printf("[%s]   registering a view live (%d time(s))%n", elapsed(began), settings.repeats());
                LiveRegistration.Result registration = LiveRegistration.measure(run, fleet, settings.repeats());
                progress.printf("           %.2f ms engine CPU, %.2f ms process CPU, %.1f ms wall (median)%n",
                        registration.median().engineCpuMillis(), registration.median().processCpuMillis(),
                        registration.median().wallMillis());
                progress.printf("[%s]   routing events of one tenant%n", elapsed(began));
                RoutingCost.Result routing = RoutingCost.measure(run, fleet.views(), settings.routingCpuSeconds());
                progress.printf("           %s%n", routing.measured()
                        ? String.format("%.2f µs CPU per event over %d events", routing.cpuMicrosPerEvent(), routing.events())
                        : "not measured: " + routing.error());
                return new AtSize(fleet.views(), fleet.tenants, loadBefore, Meter.loadAverage(), restart, heap,
                        registration, routing, index);
            }
        }
    }

    private static String elapsed(long began) {
        long seconds = (System.nanoTime() - began) / 1_000_000_000L;
        return String.format("%d:%02d", seconds / 60, seconds % 60);
    }
}
