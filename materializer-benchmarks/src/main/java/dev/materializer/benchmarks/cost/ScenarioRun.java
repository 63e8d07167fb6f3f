package dev.materializer.benchmarks.cost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.benchmarks.scale.CommandCounter;
import dev.materializer.benchmarks.scale.EngineRun;
import dev.materializer.benchmarks.scale.EngineThreadsCpu;
import dev.materializer.benchmarks.scale.InProcessMongo;
import dev.materializer.benchmarks.scale.Meter;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * One scenario on a server of its own: loads it, starts an engine over it (an {@link EngineRun}:
 * the default options but for the ones the report sets, a manual clock, a command counter, plus the
 * {@link CollectionTraffic} listener on its client), waits until the views have settled, and then
 * measures one change at a time.
 *
 * <p>Only the engine's public face is used: the {@code Materializer} ({@code start}, {@code drain},
 * {@code inFlight}, {@code snapshot}), its options and its listener; the target collections by name.
 *
 * <p>The clock is manual, so no debounce, heartbeat or retry timer fires behind a measurement's
 * back: after the change is heard the report moves the clock one debounce at a time (the due timers
 * run on the report's thread, and what they allocate there is counted with the engine's), drains
 * the engine, waits {@link #QUIET_MILLIS} for anything the passes caused (their own writes come
 * back on the streams of views that read them), and stops after two rounds in a row that started
 * no pass and heard no change.
 *
 * <p>Before each change, with the engine quiet, it measures the engine idle for {@link #IDLE_MILLIS}.
 * The server's change log needs no trimming: a stream's poll reads only the entries after its
 * position (the plain server scanned its whole oplog for each poll, and this report trimmed it).
 *
 * <p>A change of many writes (a burst: {@link Scenario#changesPerRepeat()}) is waited for until the
 * engine heard every write, so that the first move of the clock finds them all, as a debounce does
 * when the burst comes within it. A change that must flip views ({@link Scenario#viewsToFlip()}) is
 * done only once the engine's snapshot shows that many views on a new generation.
 *
 * <p>Threads: one report thread calls everything here; the listener's hooks add to the pass log on
 * the engine's pass threads.
 */
final class ScenarioRun implements AutoCloseable {

    static final String DATABASE = "cost";

    static final String INSTANCE = "cost-report";

    /** How long a round waits, after a drain, for events the passes caused (the streams poll every few tens of ms). */
    static final long QUIET_MILLIS = 400;

    /** How long the idle allocation of the engine's threads (the streams' polling) is measured before each change. */
    static final long IDLE_MILLIS = 1000;

    /** A wait for the writes of a burst to be heard stops when none more is heard for this long. */
    static final long HEARD_STALL_MILLIS = 10_000;

    private final Scenario scenario;

    private final CountingBackend backend = new CountingBackend();

    private final InProcessMongo mongo = new InProcessMongo(backend);

    private final CollectionTraffic traffic = new CollectionTraffic();

    private final MongoClient setupClient;

    private final MongoDatabase data;

    private final MaterializerOptions base;

    private final Queue<Timed> passLog = new ConcurrentLinkedQueue<>();

    private @Nullable EngineRun run;

    private @Nullable EngineThreadsCpu threads;

    /** A pass start (report null) or end, at a nanoTime. */
    private record Timed(ViewKey view, @Nullable PassReport report, long atNanos) {
    }

    /**
     * How the start went.
     * @param running whether the engine said it runs within the wait
     * @param settled whether every view was {@code ok} and the engine quiet within the wait
     * @param seconds how long the start and the first passes took
     * @param states every view's partition, id and state
     */
    record Start(boolean running, boolean settled, double seconds, List<String> states) {

        private static final int LISTED = 10;

        /** Every view's state, or, past {@value #LISTED} views, how many are ok and the others by name. */
        String described() {
            if (states.size() <= LISTED) {
                return String.join(", ", states);
            }
            String ok = " " + ViewState.OK.value();
            List<String> others = states.stream().filter(state -> !state.endsWith(ok)).toList();
            return String.format("%,d views, %,d of them ok%s", states.size(), states.size() - others.size(),
                    others.isEmpty() ? "" : "; " + String.join(", ", others.subList(0, Math.min(LISTED, others.size())))
                            + (others.size() > LISTED ? ", …" : ""));
        }
    }

    /**
     * What a change that must flip views did to them.
     * @param views how many views it must flip ({@link Scenario#viewsToFlip()}; 0: none required)
     * @param generationsMoved views whose generation in the engine's snapshot differs from before the change
     * @param changedPasses views with a pass that ended {@code CHANGED} (a flip) in the window
     * @param lastFlipNanos from the first write of the change to the end of the last view's first
     *     {@code CHANGED} pass; -1 unless {@code views} views had one
     * @param medianFlipNanos the same to the end of the median view's first {@code CHANGED} pass (write →
     *     visible of one view); -1 as above
     * @param p99FlipNanos the same for the view at the 99th percentile (nearest rank); -1 as above
     */
    record Flips(int views, long generationsMoved, long changedPasses, long lastFlipNanos, long medianFlipNanos,
            long p99FlipNanos) {

        static final Flips NONE = new Flips(0, 0, 0, -1, -1, -1);

        /** Whether every view the change must flip shows a new generation. */
        boolean all() {
            return generationsMoved >= views;
        }
    }

    /**
     * One change, measured.
     * @param repeat which change of the scenario
     * @param heard whether the engine heard the change (every write of it) within the wait
     * @param quiet whether the engine went quiet (a round with no pass and no change) within the wait
     * @param drained whether every drain finished within its wait
     * @param commands commands the engine's client sent, by name
     * @param traffic what it sent to and got from each collection
     * @param examined what each collection examined (the counting backend)
     * @param engineBytes bytes the engine's threads allocated, less what the report's own listener
     *     allocated on them, plus what the timers allocated on the report's thread while it moved the clock
     * @param idleBytes what the engine's threads allocate idle in as much wall time (the streams' polling)
     * @param passNanos from the start of the first pass to the end of the last
     * @param windowNanos from the change until the engine was quiet
     * @param passes the reports of the passes, in the order they ended
     * @param changesHeard the changes the engine's listener heard, by source
     * @param load the load average after the change
     * @param flips what it did to the views it must flip
     */
    record Sample(int repeat, boolean heard, boolean quiet, boolean drained, Map<String, Long> commands,
            CollectionTraffic.Snapshot traffic, CountingBackend.Snapshot examined, long engineBytes, long idleBytes,
            long passNanos, long windowNanos, List<PassReport> passes, Map<String, Long> changesHeard, String load,
            Flips flips) {

        /** The engine's allocation less its idle allocation in the window, never below zero. */
        long netBytes() {
            return engineBytes < 0 ? -1 : Math.max(0, engineBytes - idleBytes);
        }

        boolean complete() {
            return heard && quiet && drained && flips.all();
        }
    }

    ScenarioRun(Scenario scenario, MaterializerOptions base) {
        this.scenario = scenario;
        this.base = base;
        this.setupClient = mongo.client();
        this.data = setupClient.getDatabase(DATABASE);
    }

    /** Writes the sources and the view documents (the oplog off, as for the scale report), then turns the oplog on. */
    void load() {
        scenario.load(data);
        String partitionField = base.partitionField();
        for (Scenario.View view : scenario.views()) {
            data.getCollection(base.viewsCollection()).insertOne(view.document(partitionField));
        }
        mongo.enableOplog();
    }

    /** Starts the engine and waits until it runs, every view is ok and nothing moves any more. */
    Start start() throws InterruptedException {
        long began = System.nanoTime();
        EngineRun engine = new EngineRun(mongo, base, DATABASE, INSTANCE, traffic);
        this.run = engine;
        this.threads = new EngineThreadsCpu();
        engine.listener.onPassStart(view -> passLog.add(new Timed(view, null, System.nanoTime())));
        engine.listener.onPassFinish(report -> passLog.add(new Timed(report.view(), report, System.nanoTime())));
        if (!engine.startAndAwaitRunning()) {
            return new Start(false, false, seconds(began), states(engine));
        }
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        boolean settled = false;
        int quietRounds = 0;
        while (System.nanoTime() < deadline) {
            long moved = moved(engine);
            engine.clock.advance(Duration.ofSeconds(1));
            engine.drain();
            Meter.sleep(QUIET_MILLIS);
            engine.drain();
            boolean quiet = moved == moved(engine) && engine.engine.inFlight() == 0;
            quietRounds = quiet ? quietRounds + 1 : 0;
            if (quiet && allOk(engine.engine.snapshot())) {
                settled = true;
                break;
            }
            if (quietRounds >= 5) {
                break;
            }
        }
        return new Start(true, settled, seconds(began), states(engine));
    }

    private boolean allOk(MaterializerSnapshot snapshot) {
        if (snapshot.views().size() < scenario.views().size()) {
            return false;
        }
        for (ViewSnapshot view : snapshot.views()) {
            if (view.state() != ViewState.OK || view.lastOutcome() == null) {
                return false;
            }
        }
        return true;
    }

    private static List<String> states(EngineRun engine) {
        List<String> states = new ArrayList<>();
        for (ViewSnapshot view : engine.engine.snapshot().views()) {
            states.add(view.partition() + ":" + view.id() + " " + view.state().value()
                    + (view.lastError() == null ? "" : " (" + view.lastError() + ")"));
        }
        return states;
    }

    /** Makes the repeat-th change of the scenario and measures what it costs until the engine is quiet again. */
    Sample measure(int repeat) throws InterruptedException {
        EngineRun engine = running();
        EngineThreadsCpu engineThreads = threads();
        traffic.measuringThread(Thread.currentThread());

        // The engine idle (its streams poll the server): what its threads allocate in a second.
        long idleBytesBefore = engineThreads.totalAllocatedBytes() - traffic.snapshot().ownBytes();
        long idleBegan = System.nanoTime();
        Meter.sleep(IDLE_MILLIS);
        double idleBytesPerNano = (engineThreads.totalAllocatedBytes() - traffic.snapshot().ownBytes() - idleBytesBefore)
                / (double) (System.nanoTime() - idleBegan);

        Map<String, Long> commandsBefore = engine.commands.snapshot();
        CollectionTraffic.Snapshot trafficBefore = traffic.snapshot();
        CountingBackend.Snapshot examinedBefore = backend.snapshot();
        long bytesBefore = engineThreads.totalAllocatedBytes();
        int passesBefore = passLog.size();
        Map<String, Long> changesBefore = changesHeard(engine);
        long heardBefore = engine.listener.changesOf(scenario.changed());
        Map<String, String> generationsBefore = scenario.viewsToFlip() == 0 ? Map.of() : generations(engine);
        long clockBytes = 0;

        long began = System.nanoTime();
        scenario.change(data, repeat);
        boolean heard = awaitHeard(engine, heardBefore + scenario.changesPerRepeat());
        boolean heardAny = engine.listener.changesOf(scenario.changed()) > heardBefore;
        boolean quiet = false;
        boolean drained = true;
        int quietRounds = 0;
        long deadline = began + EngineRun.WAIT.toNanos();
        while (heardAny && System.nanoTime() < deadline) {
            long moved = moved(engine);
            long clockBytesBefore = Meter.threadAllocatedBytes();
            engine.clock.advance(engine.options.debounce().plusMillis(1));
            clockBytes += Meter.threadAllocatedBytes() - clockBytesBefore;
            drained &= engine.drain();
            Meter.sleep(QUIET_MILLIS);
            drained &= engine.drain();
            quietRounds = moved == moved(engine) ? quietRounds + 1 : 0;
            // Two rounds: the engine tells of a change before it marks the views, so a first round
            // may move the clock before the mark's debounce timer exists. A flip reaches the
            // snapshot on the views' stream, after the pass: a view not flipped yet keeps it going.
            if (quietRounds >= 2 && flipped(generationsBefore, engine)) {
                quiet = true;
                break;
            }
        }
        long window = System.nanoTime() - began;

        CollectionTraffic.Snapshot trafficDelta = traffic.snapshot().since(trafficBefore);
        long bytesAfter = engineThreads.totalAllocatedBytes();
        long engineBytes = bytesBefore < 0 || bytesAfter < 0 ? -1
                : bytesAfter - bytesBefore - trafficDelta.ownBytes() + clockBytes;
        List<Timed> timed = new ArrayList<>(passLog).subList(passesBefore, passLog.size());
        List<PassReport> reports = new ArrayList<>();
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        for (Timed entry : timed) {
            if (entry.report() == null) {
                firstStart = Math.min(firstStart, entry.atNanos());
            }
            else {
                reports.add(entry.report());
                lastEnd = Math.max(lastEnd, entry.atNanos());
            }
        }
        Flips flips = scenario.viewsToFlip() == 0 ? Flips.NONE
                : flips(generationsMoved(generationsBefore, generations(engine)), timed, began);
        Map<String, Long> changesAfter = changesHeard(engine);
        Map<String, Long> changes = new TreeMap<>();
        changesAfter.forEach((source, count) -> {
            long difference = count - changesBefore.getOrDefault(source, 0L);
            if (difference != 0) {
                changes.put(source, difference);
            }
        });
        return new Sample(repeat, heard, quiet, drained, CommandCounter.between(commandsBefore, engine.commands.snapshot()),
                trafficDelta, backend.snapshot().since(examinedBefore), engineBytes,
                Math.round(Math.max(0, idleBytesPerNano) * window),
                lastEnd >= firstStart ? lastEnd - firstStart : 0, window, reports, changes, Meter.loadAverage(), flips);
    }

    /**
     * Waits until the engine heard {@code expected} changes of the changed collection in all; gives
     * up after {@link EngineRun#WAIT}, or when, once one was heard, none more is heard for
     * {@link #HEARD_STALL_MILLIS}.
     */
    private boolean awaitHeard(EngineRun engine, long expected) {
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        long first = engine.listener.changesOf(scenario.changed());
        long heard = first;
        long lastMoved = System.nanoTime();
        while (heard < expected) {
            long now = System.nanoTime();
            if (now > deadline || (heard > first && now - lastMoved > HEARD_STALL_MILLIS * 1_000_000L)) {
                return false;
            }
            Meter.sleep(5);
            long next = engine.listener.changesOf(scenario.changed());
            if (next != heard) {
                heard = next;
                lastMoved = System.nanoTime();
            }
        }
        return true;
    }

    /** Whether the views the change must flip show a new generation (true when it need flip none). */
    private boolean flipped(Map<String, String> generationsBefore, EngineRun engine) {
        return scenario.viewsToFlip() == 0
                || generationsMoved(generationsBefore, generations(engine)) >= scenario.viewsToFlip();
    }

    /** Every view's generation in the engine's snapshot, by partition and id (null: none yet). */
    private static Map<String, String> generations(EngineRun engine) {
        Map<String, String> generations = new HashMap<>();
        for (ViewSnapshot view : engine.engine.snapshot().views()) {
            generations.put(view.partition() + ":" + view.id(), String.valueOf(view.generation()));
        }
        return generations;
    }

    /** Views whose generation differs from the one they had before (a view new since is not counted). */
    private static long generationsMoved(Map<String, String> before, Map<String, String> after) {
        return before.entrySet().stream()
            .filter(entry -> after.containsKey(entry.getKey()) && !after.get(entry.getKey()).equals(entry.getValue()))
            .count();
    }

    /** The flips of the window: the views with a CHANGED pass, and when the last of their first such passes ended. */
    private Flips flips(long generationsMoved, List<Timed> timed, long began) {
        Map<ViewKey, Long> firstFlip = new HashMap<>();
        for (Timed entry : timed) {
            PassReport report = entry.report();
            if (report != null && report.outcome() == PassOutcome.CHANGED) {
                firstFlip.putIfAbsent(entry.view(), entry.atNanos());
            }
        }
        int views = scenario.viewsToFlip();
        long[] sinceWrite = firstFlip.values().stream().mapToLong(at -> at - began).sorted().toArray();
        boolean every = views > 0 && sinceWrite.length >= views;
        return new Flips(views, generationsMoved, firstFlip.size(), every ? sinceWrite[sinceWrite.length - 1] : -1,
                every ? nearestRank(sinceWrite, 50) : -1, every ? nearestRank(sinceWrite, 99) : -1);
    }

    /** The value at a percentile of sorted values, by nearest rank. */
    private static long nearestRank(long[] sorted, int percentile) {
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static Map<String, Long> changesHeard(EngineRun engine) {
        Map<String, Long> changes = new TreeMap<>();
        engine.listener.changesBySource.forEach((source, count) -> changes.put(source, count.sum()));
        return changes;
    }

    /** Passes started plus changes heard: what a round watches for movement. */
    private static long moved(EngineRun engine) {
        return engine.listener.passesStarted.get() + engine.listener.changes.get();
    }

    private EngineRun running() {
        if (run == null) {
            throw new IllegalStateException("start the scenario's engine first");
        }
        return run;
    }

    private EngineThreadsCpu threads() {
        if (threads == null) {
            throw new IllegalStateException("start the scenario's engine first");
        }
        return threads;
    }

    /** The documents of the views collection, for a look at the engine's statuses when a start did not settle. */
    List<Document> viewDocuments() {
        return data.getCollection(base.viewsCollection()).find().into(new ArrayList<>());
    }

    private static double seconds(long began) {
        return (System.nanoTime() - began) / 1e9;
    }

    @Override
    public void close() {
        if (threads != null) {
            threads.close();
        }
        if (run != null) {
            run.close();
        }
        setupClient.close();
        mongo.close();
    }
}
