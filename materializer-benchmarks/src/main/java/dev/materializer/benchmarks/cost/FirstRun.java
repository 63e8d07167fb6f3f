package dev.materializer.benchmarks.cost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.materializer.benchmarks.ReportArguments;
import dev.materializer.benchmarks.scale.EngineRun;
import dev.materializer.benchmarks.scale.InProcessMongo;
import dev.materializer.benchmarks.scale.Meter;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassReport;
import dev.materializer.testing.server.InProcessBackend;
import org.jspecify.annotations.Nullable;

/**
 * How long the first run of a per-document view takes on the in-process server, on the plain
 * mongo-java-server backend ({@link MemoryBackend}) and on the project's test server
 * ({@link InProcessBackend}): the view of the cost report's first scenario ({@code $match} +
 * {@code $project}, one row per order of acme), its rows loaded before the engine starts, the
 * engine started (default options, a manual clock moved a second at a time), and timed until the
 * view's first pass has finished. Prints one Markdown row per server: rows in the target, the
 * pass's outcome, commands sent, and the wall time. A harness, not a test: nothing asserts; the wait
 * is bounded ({@link EngineRun#WAIT}) and a wait that runs out is printed as such.
 *
 * <pre>
 * ./mvnw -pl materializer-benchmarks -am -DskipTests package
 * java -cp materializer-benchmarks/target/benchmarks.jar dev.materializer.benchmarks.cost.FirstRun [--rows 10000] [--server plain|in-process|both]
 * </pre>
 */
public final class FirstRun {

    private static final String USAGE = "usage: FirstRun [--rows 10000] [--server plain|in-process|both]";

    private FirstRun() {
    }

    /** The servers the harness can run on. */
    enum Server {
        PLAIN("plain mongo-java-server (MemoryBackend)"), IN_PROCESS("the test server (InProcessBackend)");

        private final String title;

        Server(String title) {
            this.title = title;
        }

        MongoBackend backend() {
            return this == PLAIN ? new MemoryBackend() : new InProcessBackend();
        }
    }

    /**
     * What to run, from the command line.
     * @param rows the orders of acme, hence the rows of the view
     * @param servers the servers to run on, in order
     */
    record Settings(int rows, List<Server> servers) {

        static Settings parse(String... args) {
            int rows = 10_000;
            List<Server> servers = List.of(Server.PLAIN, Server.IN_PROCESS);
            for (int index = 0; index < args.length; index++) {
                String arg = args[index];
                if (arg.equals("--help") || arg.equals("-h")) {
                    throw new IllegalArgumentException(ReportArguments.USAGE);
                }
                if (!arg.equals("--rows") && !arg.equals("--server")) {
                    throw new IllegalArgumentException("unknown option '" + arg + "' (the options are --rows and --server)");
                }
                if (index + 1 >= args.length) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                String value = args[++index];
                if (arg.equals("--rows")) {
                    try {
                        rows = Integer.parseInt(value.replace("_", ""));
                    }
                    catch (NumberFormatException ex) {
                        rows = -1;
                    }
                    if (rows < 1 || rows > 10_000_000) {
                        throw new IllegalArgumentException("--rows must be a whole number from 1 to 10000000, not '" + value + "'");
                    }
                }
                else {
                    servers = switch (value.toLowerCase(Locale.ROOT)) {
                        case "plain" -> List.of(Server.PLAIN);
                        case "in-process" -> List.of(Server.IN_PROCESS);
                        case "both" -> List.of(Server.PLAIN, Server.IN_PROCESS);
                        default -> throw new IllegalArgumentException(
                                "--server must be plain, in-process or both, not '" + value + "'");
                    };
                }
            }
            return new Settings(rows, servers);
        }
    }

    /**
     * One first run, measured.
     * @param finished whether the view's first pass finished within the wait
     * @param seconds from the engine's start until that pass finished (or the wait ran out)
     * @param report the pass's report, null when none finished
     * @param targetRows the documents in the view's target afterwards
     * @param commands the commands the engine's client sent until then
     */
    record Result(boolean finished, double seconds, @Nullable PassReport report, long targetRows, long commands) {
    }

    public static void main(String[] args) throws InterruptedException {
        Settings settings = ReportArguments.parseOrExit(args, Settings::parse, USAGE);
        System.err.printf("first run of a per-document view of %,d rows; %s%n", settings.rows(), Meter.machine());
        System.out.printf("| server | rows in the target | first pass | commands sent | start → first pass finished (wall) |%n");
        System.out.println("| --- | ---: | --- | ---: | ---: |");
        for (Server server : settings.servers()) {
            System.err.printf("%s: loading (load %s)%n", server.title, Meter.loadAverage());
            Result result = run(server, settings.rows());
            PassReport report = result.report();
            System.out.printf("| %s | %,d | %s | %,d | %s%.1f s |%n", server.title, result.targetRows(),
                    report == null ? "none" : report.outcome() + " (" + report.rowsWritten() + " written)",
                    result.commands(), result.finished() ? "" : "not finished within the wait: ", result.seconds());
        }
        System.out.printf("%nLoad average at the end %s.%n", Meter.loadAverage());
    }

    static Result run(Server server, int rows) throws InterruptedException {
        Scenario scenario = new Scenario.PerDocument(rows);
        MaterializerOptions base = EngineRun.baseOptions();
        try (InProcessMongo mongo = new InProcessMongo(server.backend()); MongoClient setup = mongo.client()) {
            MongoDatabase data = setup.getDatabase(ScenarioRun.DATABASE);
            scenario.load(data);
            for (Scenario.View view : scenario.views()) {
                data.getCollection(base.viewsCollection()).insertOne(view.document(base.partitionField()));
            }
            mongo.enableOplog();
            try (EngineRun engine = new EngineRun(mongo, base, ScenarioRun.DATABASE, ScenarioRun.INSTANCE)) {
                CountDownLatch finished = new CountDownLatch(1);
                AtomicReference<@Nullable PassReport> first = new AtomicReference<>();
                AtomicLong finishedAt = new AtomicLong();
                engine.listener.onPassFinish(report -> {
                    if (first.compareAndSet(null, report)) {
                        finishedAt.set(System.nanoTime());
                        finished.countDown();
                    }
                });
                long began = System.nanoTime();
                long deadline = began + EngineRun.WAIT.toNanos();
                boolean done = engine.startAndAwaitRunning();
                while (done && !finished.await(200, TimeUnit.MILLISECONDS)) {
                    if (System.nanoTime() > deadline) {
                        done = false;
                        break;
                    }
                    // A view registered at the start may wait for a debounce of the manual clock.
                    engine.clock.advance(Duration.ofSeconds(1));
                }
                long end = done ? finishedAt.get() : System.nanoTime();
                long commands = engine.commands.snapshot().values().stream().mapToLong(Long::longValue).sum();
                long targetRows = 0;
                for (String target : new ArrayList<>(scenario.targets())) {
                    targetRows += data.getCollection(target).countDocuments();
                }
                return new Result(done, (end - began) / 1e9, first.get(), targetRows, commands);
            }
        }
    }
}
