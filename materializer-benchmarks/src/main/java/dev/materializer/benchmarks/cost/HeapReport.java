package dev.materializer.benchmarks.cost;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.benchmarks.ReportArguments;
import dev.materializer.benchmarks.scale.EngineRun;
import dev.materializer.benchmarks.scale.InProcessMongo;
import dev.materializer.benchmarks.scale.Meter;
import dev.materializer.core.MaterializerOptions;
import org.jspecify.annotations.Nullable;

/**
 * The heap of a whole pass: whether an engine in a JVM of {@code -Xmx64m} finishes a whole pass
 * over a view of 100,000 rows, and how much heap it holds doing so. The server (mongo-java-server,
 * the cost report's counting backend) runs in this JVM, the engine in a child JVM
 * ({@link HeapPass}) with the small heap, so the server's documents are not counted: the child
 * holds the engine, its driver and the JVM's own objects.
 *
 * <p>Each run: a fresh server, {@code rows} orders of acme and the per-document view of the cost
 * report (one row per order) written, then the child started: the engine's start and the view's
 * first pass (every row written to an empty target), then a refresh (a whole pass again: every row
 * of the result read and merged with the stored rows, none written). The runs: the server
 * answering an aggregate whole in its first batch (mongo-java-server as it is: "before"), at the first
 * of {@code --heaps}, and in batches of its {@code cursor.batchSize} (as MongoDB: "after"), at each
 * of {@code --heaps} (the smaller ones show how much room the pass leaves); a run that runs out of
 * heap is run again at {@code --roomy-heap}, to show what it needed.
 *
 * <pre>
 * ./mvnw -pl materializer-benchmarks -am -DskipTests package
 * java -cp materializer-benchmarks/target/benchmarks.jar dev.materializer.benchmarks.cost.HeapReport \
 *     [--rows 100000] [--heaps 64m,16m] [--roomy-heap 256m|none] [--keep DIR] [--histograms]
 * </pre>
 *
 * {@code --keep DIR} writes each child's GC log there; {@code --histograms} also takes the child's
 * class histogram ({@code jcmd PID GC.class_histogram}, a full collection each) every 2 s and keeps
 * them in DIR: they change the GC figures (a full collection each), so take the figures from a run
 * without them. Prints Markdown to standard output, progress to standard error. A report, not a
 * test: nothing asserts.
 */
public final class HeapReport {

    static final String DATABASE = "heap";

    private static final String USAGE = "usage: HeapReport [--rows 100000] [--heaps 64m,16m] [--roomy-heap 256m|none]"
            + " [--keep DIR] [--histograms]";

    private static final long HISTOGRAM_MILLIS = 2000;

    /**
     * What to run.
     * @param rows rows of the view
     * @param heaps the {@code -Xmx} of the child, each a run per server mode
     * @param roomyHeap the {@code -Xmx} of a second run of one that ran out of heap, or null for none
     * @param keep where GC logs and histograms go, or null
     * @param histograms whether to take class histograms of the child
     */
    record Settings(int rows, List<String> heaps, @Nullable String roomyHeap, @Nullable Path keep, boolean histograms) {

        static Settings parse(String... args) {
            int rows = 100_000;
            List<String> heaps = List.of("64m", "16m");
            String roomy = "256m";
            Path keep = null;
            boolean histograms = false;
            for (int index = 0; index < args.length; index++) {
                String arg = args[index];
                if (arg.equals("--histograms")) {
                    histograms = true;
                    continue;
                }
                if (arg.equals("--help") || arg.equals("-h")) {
                    throw new IllegalArgumentException(ReportArguments.USAGE);
                }
                if (index + 1 >= args.length) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                String value = args[++index];
                switch (arg) {
                    case "--rows" -> rows = Integer.parseInt(value.replace("_", ""));
                    case "--heaps" -> heaps = List.of(value.split(","));
                    case "--roomy-heap" -> roomy = value.equals("none") ? null : value;
                    case "--keep" -> keep = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
                }
            }
            for (String heap : heaps) {
                requireHeap(heap);
            }
            if (roomy != null) {
                requireHeap(roomy);
            }
            if (rows < 1) {
                throw new IllegalArgumentException("--rows must be at least 1");
            }
            if (histograms && keep == null) {
                throw new IllegalArgumentException("--histograms needs --keep DIR");
            }
            return new Settings(rows, heaps, roomy, keep, histograms);
        }

        private static void requireHeap(String heap) {
            if (!heap.matches("[0-9]+[kKmMgG]")) {
                throw new IllegalArgumentException("a heap is given as for -Xmx, e.g. 64m; was '" + heap + "'");
            }
        }
    }

    /**
     * One child JVM, measured.
     * @param batched whether the server answered aggregates in batches
     * @param heap the child's {@code -Xmx}
     * @param exitCode how the child ended (3: out of heap), -1 when it was killed after the wait
     * @param phases the {@code result} lines of the phases it finished, in order
     * @param lastProgress its last {@code progress} line, or null
     * @param failure the child's last lines of standard error when it did not end well, or null
     * @param loadBefore the load average when it started
     * @param loadAfter the load average when it ended
     * @param seconds how long it ran
     * @param largestHistogram the histogram with the most bytes, or null
     */
    record Run(boolean batched, String heap, int exitCode, List<Map<String, String>> phases,
            @Nullable Map<String, String> lastProgress, @Nullable String failure, String loadBefore, String loadAfter,
            double seconds, @Nullable Path largestHistogram) {

        boolean outOfMemory() {
            return exitCode == 3;
        }

        String mode() {
            return batched ? "in batches of batchSize (as MongoDB)" : "whole, in the first batch (mongo-java-server)";
        }
    }

    private HeapReport() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = ReportArguments.parseOrExit(args, Settings::parse, USAGE);
        long began = System.nanoTime();
        String machine = Meter.machine();
        String loadAtStart = Meter.loadAverage();
        System.err.printf("heap report: %s%nload average %s%n", machine, loadAtStart);
        if (settings.keep() != null) {
            Files.createDirectories(settings.keep());
        }
        List<Run> runs = new ArrayList<>();
        for (boolean batched : new boolean[] {false, true}) {
            // The single batch at the first heap only (and the roomy one): it is the "before".
            for (String heap : batched ? settings.heaps() : settings.heaps().subList(0, 1)) {
                Run run = run(settings.rows(), batched, heap, settings.keep(), settings.histograms(), System.err);
                runs.add(run);
                if (run.outOfMemory() && settings.roomyHeap() != null) {
                    runs.add(run(settings.rows(), batched, settings.roomyHeap(), settings.keep(), settings.histograms(),
                            System.err));
                }
            }
        }
        print(settings, machine, loadAtStart, Meter.loadAverage(), (System.nanoTime() - began) / 1e9, runs, System.out);
    }

    /** Loads a fresh server, runs the child against it, and reads what it printed. */
    static Run run(int rows, boolean batched, String heap, @Nullable Path keep, boolean histograms, PrintStream progress)
            throws IOException, InterruptedException {
        Scenario.PerDocument scenario = new Scenario.PerDocument(rows);
        String label = (batched ? "batched" : "single-batch") + "-" + heap;
        try (InProcessMongo mongo = new InProcessMongo(new CountingBackend(batched)); MongoClient setup = mongo.client()) {
            MongoDatabase database = setup.getDatabase(DATABASE);
            long loadBegan = System.nanoTime();
            scenario.load(database);
            String partitionField = MaterializerOptions.defaults().partitionField();
            for (Scenario.View view : scenario.views()) {
                database.getCollection(MaterializerOptions.defaults().viewsCollection())
                    .insertOne(view.document(partitionField));
            }
            mongo.enableOplog();
            progress.printf("[%s] %,d rows loaded in %.1f s; the engine at -Xmx%s (load %s)%n", label, rows,
                    (System.nanoTime() - loadBegan) / 1e9, heap, Meter.loadAverage());

            Scenario.View view = scenario.views().get(0);
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx" + heap, "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError"));
            if (keep != null) {
                command.add("-Xlog:gc*:file=" + keep.resolve("gc-" + label + ".log"));
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), HeapPass.class.getName(),
                    mongo.connectionString(), DATABASE, String.valueOf(rows), view.partition(), view.id(),
                    view.source()));
            String loadBefore = Meter.loadAverage();
            long began = System.nanoTime();
            Process child = new ProcessBuilder(command).start();
            List<Map<String, String>> phases = new ArrayList<>();
            Map<String, String>[] last = newProgress();
            List<String> errors = new ArrayList<>();
            Thread out = reader(child.getInputStream(), line -> {
                if (line.startsWith(HeapPass.PREFIX + "result ")) {
                    Map<String, String> figures = parse(line.substring((HeapPass.PREFIX + "result ").length()));
                    synchronized (phases) {
                        phases.add(figures);
                    }
                    progress.printf("[%s] %s: %s, %s written, heap after GC at most %s, pass allocated %s%n", label,
                            figures.get("phase"), figures.get("outcome"), figures.get("written"),
                            mb(figures.get("maxAfterGc")), mb(figures.get("passAllocated")));
                }
                else if (line.startsWith(HeapPass.PREFIX + "progress ")) {
                    last[0] = parse(line.substring((HeapPass.PREFIX + "progress ").length()));
                }
            });
            Thread err = reader(child.getErrorStream(), line -> {
                synchronized (errors) {
                    errors.add(line);
                    if (errors.size() > 20) {
                        errors.remove(0);
                    }
                }
                progress.printf("[%s] child: %s%n", label, line);
            });
            Path largest = null;
            long largestBytes = -1;
            int taken = 0;
            long deadline = System.nanoTime() + EngineRun.WAIT.toNanos() * 2;
            while (!child.waitFor(histograms ? HISTOGRAM_MILLIS : 1000, TimeUnit.MILLISECONDS)) {
                if (System.nanoTime() > deadline) {
                    child.destroyForcibly();
                    break;
                }
                if (histograms && keep != null && last[0] != null) {
                    Path file = keep.resolve("histogram-" + label + "-" + ++taken + ".txt");
                    long bytes = histogram(child.pid(), file, last[0]);
                    if (bytes > largestBytes) {
                        largestBytes = bytes;
                        largest = file;
                    }
                }
            }
            child.waitFor();
            out.join(5000);
            err.join(5000);
            int exit = child.isAlive() ? -1 : child.exitValue();
            double seconds = (System.nanoTime() - began) / 1e9;
            String failure = exit == 0 ? null : String.join(" / ", errors);
            progress.printf("[%s] child ended (exit %d%s) after %.1f s%n", label, exit, exit == 3 ? ": out of heap" : "",
                    seconds);
            return new Run(batched, heap, exit, List.copyOf(phases), last[0], failure, loadBefore, Meter.loadAverage(),
                    seconds, largest);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String>[] newProgress() {
        return new Map[1];
    }

    /** Writes the child's class histogram (a full collection) to a file, headed by the progress; its total bytes, or -1. */
    private static long histogram(long pid, Path file, Map<String, String> progress) {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(pid), "GC.class_histogram").redirectErrorStream(true).start();
            String text = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            jcmd.waitFor(30, TimeUnit.SECONDS);
            Files.writeString(file, "# " + progress + "\n" + text);
            for (String line : text.split("\n")) {
                String trimmed = line.trim();
                if (trimmed.startsWith("Total")) {
                    String[] fields = trimmed.split("\\s+");
                    return Long.parseLong(fields[fields.length - 1]);
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            return -1;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return -1;
    }

    private static Thread reader(java.io.InputStream stream, Consumer<String> lines) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    lines.accept(line);
                }
            }
            catch (IOException ex) {
                // the child ended
            }
        }, "heap-report-reader");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    static Map<String, String> parse(String line) {
        Map<String, String> figures = new LinkedHashMap<>();
        for (String field : line.trim().split(" ")) {
            int equals = field.indexOf('=');
            if (equals > 0) {
                figures.put(field.substring(0, equals), field.substring(equals + 1));
            }
        }
        return figures;
    }

    static String mb(@Nullable String bytes) {
        if (bytes == null || bytes.isEmpty() || bytes.startsWith("-")) {
            return "—";
        }
        return String.format("%.1f MB", Long.parseLong(bytes) / (1024.0 * 1024.0));
    }

    private static final List<String> PHASES = List.of("first-run", "refresh");

    static void print(Settings settings, String machine, String loadAtStart, String loadAtEnd, double seconds,
            List<Run> runs, PrintStream out) {
        out.printf("# Heap of a whole pass, %,d-row per-document view%n%n", settings.rows());
        out.printf("%s; load average %s at the start, %s at the end; %.0f s.%n%n", machine, loadAtStart, loadAtEnd, seconds);
        out.println("Engine in a child JVM (G1, `-XX:+ExitOnOutOfMemoryError`), the server in the report's JVM. "
                + "Phases: *first-run* = the engine's start and the view's first pass (every row written to an empty "
                + "target); *refresh* = a whole pass again over the stored rows (none written). MB = 1024² bytes.");
        out.println();
        out.println("| server answers an aggregate | -Xmx | phase | finished | rows written | result batches received"
                + " | heap after GC, most | heap before GC, most | heap pools' peaks, sum (old gen) | pass thread allocated"
                + " | pass time | heap before the engine / after the phase | GCs (major) | load before → after |");
        out.println("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
        for (Run run : runs) {
            for (String phase : PHASES) {
                Map<String, String> figures = run.phases().stream().filter(p -> phase.equals(p.get("phase"))).findFirst()
                    .orElse(null);
                if (figures != null) {
                    out.printf("| %s | %s | %s | yes (%s, %s) | %s | %s | %s | %s | %s (%s) | %s | %s s | %s / %s | %s (%s) | %s → %s |%n",
                            run.mode(), run.heap(), phase, figures.get("outcome"), figures.get("scope"),
                            figures.get("written"), figures.get("resultBatches"), mb(figures.get("maxAfterGc")),
                            mb(figures.get("maxBeforeGc")), mb(figures.get("poolPeaks")), mb(figures.get("oldPeak")),
                            mb(figures.get("passAllocated")), figures.get("passSeconds"), mb(figures.get("baseline")),
                            mb(figures.get("retained")), figures.get("gcs"), figures.get("majorGcs"), run.loadBefore(),
                            run.loadAfter());
                    continue;
                }
                Map<String, String> last = run.lastProgress();
                boolean here = last != null && phase.equals(last.get("phase"));
                boolean before = run.phases().isEmpty() ? phase.equals(PHASES.get(0)) : here;
                if (!here && !before) {
                    continue;
                }
                String how = run.outOfMemory() ? "**no: out of heap**" : run.exitCode() == -1 ? "**no: killed after the wait**"
                        : "**no: exit " + run.exitCode() + "**";
                out.printf("| %s | %s | %s | %s after %s s | — | — | %s (so far) | %s (so far) | — | %s (so far) | — | — | %s (so far) | %s → %s |%n",
                        run.mode(), run.heap(), phase, how, last == null ? "?" : last.get("seconds"),
                        mb(last == null ? null : last.get("maxAfterGc")), mb(last == null ? null : last.get("maxBeforeGc")),
                        mb(last == null ? null : last.get("passAllocated")), last == null ? "—" : last.get("gcs"),
                        run.loadBefore(), run.loadAfter());
            }
        }
        out.println();
        for (Run run : runs) {
            if (run.failure() != null) {
                out.printf("- %s, -Xmx%s: the child's last words: %s%n", run.mode(), run.heap(), run.failure());
            }
            if (run.largestHistogram() != null) {
                out.printf("- %s, -Xmx%s: largest class histogram: %s%n", run.mode(), run.heap(), run.largestHistogram());
            }
        }
    }
}
