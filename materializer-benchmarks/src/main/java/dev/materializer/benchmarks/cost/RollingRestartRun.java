package dev.materializer.benchmarks.cost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.materializer.benchmarks.scale.CommandCounter;
import dev.materializer.benchmarks.scale.EngineRun;
import dev.materializer.benchmarks.scale.InProcessMongo;
import dev.materializer.benchmarks.scale.Meter;
import dev.materializer.core.engine.EngineDiagnostics;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassReport;
import dev.materializer.core.PassScope;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.cluster.Rendezvous;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewState;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

/**
 * A rolling restart of three instances on one server of its own: loads a {@link RollingRestart},
 * starts instances {@code a}, {@code b} and {@code c} on one database (each an {@link EngineRun}
 * with a client of its own carrying a command counter and the shared {@link CollectionTraffic}, all
 * on ONE manual clock), waits until they see each other and every view is ok, and then restarts
 * them one at a time: close (gracefully: it leaves, its streams save their last checkpoints), the
 * others take its partitions, optionally a write in each of a few tenants, start again under the
 * same id or a new one, wait until all three see each other and are idle. Each variant
 * ({@link Ids} × {@link Writes}) restarts every instance once, on the same server, one after the other.
 * With {@link Writes#UNAPPLIED} the writes come before the stop: every instance hears them, the clock
 * stays, so the stopping instance's passes for them have not run when it closes, and its take-over
 * must apply them.
 *
 * <p>What it counts per phase of a step: the pass reports of every instance ({@code onPassFinished}:
 * each is a view whose pipeline ran), the commands of every instance's client, by name and (through
 * the traffic) by collection, and the wall time.
 *
 * <p>Time: the clock is manual, so a debounce, heartbeat or checkpoint timer fires only when the run
 * moves it, as the tests of several instances do: one partition lease / 3 (a heartbeat) to make a
 * stop or a start known, then rounds of one second (every debounce and its longest delay), each
 * followed by a wait until every instance is idle and {@link ScenarioRun#QUIET_MILLIS} for what its
 * passes caused, until two rounds in a row start no pass, hear no change and leave every instance
 * caught up; then, once any instance has a position of {@code orders}, moves of 6 s (past the
 * streams' checkpoint interval) until every instance saved a checkpoint of it under the live set,
 * nothing pending (after a phase with writes, saved after it heard them): a cluster whose instances
 * take seconds to restart has that between two steps.
 * Without that wait ({@code checkpointWait} false: the first version of this run) the phases follow
 * each other as fast as the clock allows.
 * Heartbeats are judged in the server's time, so while it waits the run also beats for
 * every running instance every {@link #KEEP_ALIVE} of wall time ({@link EngineDiagnostics#beat}):
 * without that, a long wait would let the others count an instance dead.
 *
 * <p>Threads: one report thread calls everything here; the listeners' hooks add to the pass log on
 * the engines' pass threads.
 */
final class RollingRestartRun implements AutoCloseable {

    static final String DATABASE = "rolling";

    /** The instances that start first, in the order they are restarted. */
    static final List<String> FIRST_IDS = List.of("a", "b", "c");

    /** How far the clock moves per round: past every debounce and its longest delay (1 s by default). */
    private static final Duration ROUND = Duration.ofSeconds(1);

    /** A move of the clock past the streams' checkpoint interval (5 s). */
    private static final Duration CHECKPOINT_STEP = Duration.ofSeconds(6);

    /** How often, in wall time, every running instance beats while the run waits. */
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(5);

    /** How long a look for a new live set waits for the beats a move of the clock fired. */
    private static final long LIVE_POLL_MILLIS = 3_000;

    /** How an instance comes back. */
    enum Ids {

        /** Under the id it had. */
        SAME("the same id"),

        /** Under an id never used before (a new pod name, say). */
        NEW("a new id");

        final String words;

        Ids(String words) {
            this.words = words;
        }
    }

    /** Whether and when a step writes. */
    enum Writes {

        /** No write. */
        NONE("no", "without writes"),

        /** One order in each of a few tenants while the instance is down, heard and settled. */
        WHILE_DOWN("yes", "with writes"),

        /**
         * One order in each of a few tenants of the instance just before it stops: heard by every
         * instance, the clock not moved, so its passes for them have not run when it closes.
         */
        UNAPPLIED("heard, not applied, at the stop", "with writes heard but not applied at the stop");

        /** In the table's column of the writes. */
        final String cell;

        /** In a variant's name. */
        final String words;

        Writes(String cell, String words) {
            this.cell = cell;
            this.words = words;
        }

        boolean any() {
            return this != NONE;
        }
    }

    /** A variant to run: how the instances come back, and whether and when each step writes. */
    record Plan(Ids ids, Writes writes) {
    }

    /**
     * The variants after the warm-up, in order. Twice without writes under the same id: the first
     * time, the streams of the instances opened before any checkpoint of {@code orders} existed;
     * the second time every one resumed from a checkpoint.
     */
    static final List<Plan> AFTER_WARM_UP = List.of(new Plan(Ids.SAME, Writes.NONE), new Plan(Ids.SAME, Writes.NONE),
            new Plan(Ids.SAME, Writes.WHILE_DOWN), new Plan(Ids.NEW, Writes.NONE), new Plan(Ids.NEW, Writes.WHILE_DOWN));

    /** The variants with the writes heard but not applied at the stop, after the others when asked for. */
    static final List<Plan> UNAPPLIED_AT_STOP = List.of(new Plan(Ids.SAME, Writes.UNAPPLIED),
            new Plan(Ids.NEW, Writes.UNAPPLIED));

    /** The variants after the warm-up, with or without those of the writes not applied at the stop. */
    static List<Plan> afterWarmUp(boolean unapplied) {
        if (!unapplied) {
            return AFTER_WARM_UP;
        }
        List<Plan> plans = new ArrayList<>(AFTER_WARM_UP);
        plans.addAll(UNAPPLIED_AT_STOP);
        return List.copyOf(plans);
    }

    /** The phases of one step. */
    enum Stage {

        /**
         * The instance closes; the others see it gone and take its partitions. With the writes not
         * applied at the stop, they come first in this phase.
         */
        TAKEOVER("stop and take-over"),

        /** One order in each of a few tenants, while the instance is down. */
        WRITES("writes while down"),

        /** The instance starts again; the others hand its partitions back. */
        BACK("start again");

        final String words;

        Stage(String words) {
            this.words = words;
        }
    }

    /** A pass report, with the instance that ran it. */
    record Logged(String instance, PassReport report) {
    }

    /**
     * How the start of the three went.
     * @param running whether every instance said it runs within the wait
     * @param settled whether every view was ok in every instance's snapshot and all were idle
     * @param seconds from the first start until settled
     * @param passes the passes of the start (the first runs of every view)
     * @param described the states of the views, summed up
     */
    record Start(boolean running, boolean settled, double seconds, long passes, String described) {
    }

    /**
     * One phase of a step, measured.
     * @param stage which phase
     * @param nanos its wall time (the run's waits included)
     * @param passes the passes that finished in it
     * @param commands the commands every instance sent in it, by name
     * @param traffic the traffic of every instance in it, by collection
     * @param settled whether every wait of the phase ended as it should (live sets seen, idle, quiet)
     */
    record Phase(Stage stage, long nanos, List<Logged> passes, Map<String, Long> commands,
            CollectionTraffic.Snapshot traffic, boolean settled) {
    }

    /**
     * One instance restarted.
     * @param stopped the instance stopped
     * @param startedAs the id it came back under
     * @param written the tenants written to while it was down (none without writes)
     * @param writtenOfStopped how many of them it owned before it stopped
     * @param beforeStop with the writes not applied at the stop: the passes that finished between the
     *     write and the {@code close()} (none, unless something ran them without the clock), else none
     * @param closeNanos how long its {@code close()} took
     * @param resumesFrom the checkpoint of orders its stream was to resume from when it started again
     *     (its own, else the newest other one), in words: whose, the live set it was saved under and
     *     how many partitions it listed pending
     * @param startNanos from its {@code start()} until it said it runs
     * @param phases the phases, in order
     */
    record Step(String stopped, String startedAs, List<String> written, long writtenOfStopped,
            List<Logged> beforeStop, long closeNanos, String resumesFrom, long startNanos, List<Phase> phases) {

        boolean settled() {
            return phases.stream().allMatch(Phase::settled);
        }

        List<Logged> passes() {
            List<Logged> passes = new ArrayList<>();
            phases.forEach(phase -> passes.addAll(phase.passes()));
            return passes;
        }

        long nanos() {
            return phases.stream().mapToLong(Phase::nanos).sum();
        }
    }

    /**
     * A rolling restart of every instance, measured.
     * @param ids how the instances came back
     * @param writes whether and when each step wrote
     * @param checkpointed whether any checkpoint of {@code orders} existed at its start (none before
     *     the first event on it, on this server)
     * @param openedFromNow of the instances running at its start, those whose stream of {@code orders}
     *     opened with no checkpoint of it to resume from (started from now)
     * @param steps the steps, in order
     * @param outOfSync with writes, after the last step: the views the writes touched whose stored rows
     *     differ from a fresh run of their pipeline ({@code verify}, outside the counts), with what differs
     * @param error why it stopped early, or null
     */
    record Variant(Ids ids, Writes writes, boolean checkpointed, int openedFromNow, List<Step> steps,
            List<String> outOfSync, @Nullable String error) {

        List<Logged> passes() {
            List<Logged> passes = new ArrayList<>();
            steps.forEach(step -> passes.addAll(step.passes()));
            return passes;
        }

        List<Logged> passesIn(Stage stage) {
            List<Logged> passes = new ArrayList<>();
            for (Step step : steps) {
                step.phases().stream().filter(phase -> phase.stage() == stage).forEach(phase -> passes.addAll(phase.passes()));
            }
            return passes;
        }

        CollectionTraffic.Snapshot traffic() {
            Map<String, CollectionTraffic.Traffic> sum = new TreeMap<>();
            for (Step step : steps) {
                for (Phase phase : step.phases()) {
                    phase.traffic().byCollection().forEach((collection, traffic) -> sum.merge(collection, traffic,
                            CollectionTraffic.Traffic::plus));
                }
            }
            return new CollectionTraffic.Snapshot(sum, 0);
        }

        long commands() {
            long total = 0;
            for (Step step : steps) {
                for (Phase phase : step.phases()) {
                    total += CommandCounter.total(phase.commands());
                }
            }
            return total;
        }

        /** The pipelines sent to {@code orders}: {@code aggregate} commands that are no change stream. */
        long aggregatesOnOrders() {
            return traffic().of(Scenario.ORDERS).commands().getOrDefault("aggregate", 0L);
        }

        long nanos() {
            return steps.stream().mapToLong(Step::nanos).sum();
        }

        boolean settled() {
            return error == null && steps.size() == FIRST_IDS.size() && steps.stream().allMatch(Step::settled)
                    && outOfSync.isEmpty();
        }

        /** The views the writes touched: every view of every tenant written to. */
        Set<String> viewsTouched() {
            Set<String> views = new TreeSet<>();
            for (Step step : steps) {
                for (String tenant : step.written()) {
                    for (RollingRestart.Definition definition : RollingRestart.Definition.values()) {
                        views.add(tenant + ":" + definition.suffix);
                    }
                }
            }
            return views;
        }

        String name() {
            return writes.words + ", back under " + ids.words + history(", ");
        }

        /** What the streams of orders had behind them at its start, after the separator; "" when every one resumed. */
        String history(String separator) {
            if (!checkpointed) {
                return separator + "before any event on `orders` (no checkpoint of it)";
            }
            return openedFromNow == 0 ? "" : separator + openedFromNow + " of " + FIRST_IDS.size()
                    + " instances' streams of `orders` opened without a checkpoint";
        }
    }

    /**
     * The one write after the variant before any event that gives every stream of {@code orders} a position.
     * @param checkpointed whether every running instance then saved a checkpoint of {@code orders}
     * @param passes the passes it caused
     * @param seconds how long it took
     */
    record WarmUp(boolean checkpointed, long passes, double seconds) {
    }

    /**
     * A whole rolling-restart measurement.
     * @param setup the tenants and views
     * @param loadSeconds how long writing the sources and views took
     * @param start how the start of the three went, null when it failed before
     * @param warmUp the write after the variant before any event, null when not made
     * @param checkpointWait whether each phase ended with the wait for fresh checkpoints
     * @param variants the variants measured
     * @param error why it stopped early, or null
     */
    record Result(RollingRestart setup, double loadSeconds, @Nullable Start start, @Nullable WarmUp warmUp,
            boolean checkpointWait, List<Variant> variants, @Nullable String error) {
    }

    private final RollingRestart setup;

    private final MaterializerOptions base;

    /** Whether each phase ends with the wait for fresh checkpoints of {@code orders}. */
    private final boolean checkpointWait;

    private final InProcessMongo mongo = new InProcessMongo(new CountingBackend());

    private final CollectionTraffic traffic = new CollectionTraffic();

    private final ManualClock clock = new ManualClock();

    private final MongoClient setupClient;

    private final MongoDatabase data;

    /** The instances running now, by id. */
    private final Map<String, EngineRun> running = new LinkedHashMap<>();

    /** Every instance started, closed ones too: their counters keep what they sent. */
    private final List<EngineRun> started = new ArrayList<>();

    private final Queue<Logged> passLog = new ConcurrentLinkedQueue<>();

    /** Per instance started: whether a checkpoint of orders existed for its stream to resume from. */
    private final Map<String, Boolean> openedFromCheckpoint = new TreeMap<>();

    private long lastBeat = System.nanoTime();

    private int writes;

    private int newIds;

    /**
     * @param setup the tenants and views
     * @param base the engine's options
     * @param checkpointWait whether each phase ends with the wait for fresh checkpoints of {@code orders}
     */
    RollingRestartRun(RollingRestart setup, MaterializerOptions base, boolean checkpointWait) {
        this.setup = setup;
        this.base = base;
        this.checkpointWait = checkpointWait;
        this.setupClient = mongo.client();
        this.data = setupClient.getDatabase(DATABASE);
    }

    /** Writes the orders and the view documents (the oplog off), then turns the oplog on. */
    void load() {
        setup.load(data);
        for (Scenario.View view : setup.views()) {
            data.getCollection(base.viewsCollection()).insertOne(view.document(base.partitionField()));
        }
        mongo.enableOplog();
    }

    /** Starts a, b and c together and waits until each sees all three live, every view is ok and all are idle. */
    Start start() throws InterruptedException {
        long began = System.nanoTime();
        FIRST_IDS.forEach(this::launch);
        boolean up = true;
        for (EngineRun engine : running.values()) {
            up &= awaitRunning(engine);
        }
        if (!up) {
            return new Start(false, false, seconds(began), passLog.size(), described());
        }
        boolean settled = awaitLive() && settle(true);
        return new Start(true, settled, seconds(began), passLog.size(), described());
    }

    /** Restarts every running instance once, in the order they run, and measures each step. */
    Variant restartEach(Ids ids, Writes withWrites) throws InterruptedException {
        boolean checkpointed = checkpointOfOrders(null);
        int openedFromNow = (int) running.keySet().stream().filter(instance -> !openedFromCheckpoint.get(instance)).count();
        List<Step> steps = new ArrayList<>();
        try {
            for (String instance : new ArrayList<>(running.keySet())) {
                steps.add(step(instance, ids == Ids.SAME ? instance : newId(), withWrites));
            }
            Variant measured = new Variant(ids, withWrites, checkpointed, openedFromNow, steps, List.of(), null);
            return withWrites.any() ? new Variant(ids, withWrites, checkpointed, openedFromNow, steps,
                    outOfSync(measured.viewsTouched()), null) : measured;
        }
        catch (RuntimeException | ExecutionException | TimeoutException ex) {
            return new Variant(ids, withWrites, checkpointed, openedFromNow, steps, List.of(), ex.toString());
        }
    }

    /**
     * Compares the stored rows of each view with a fresh run of its pipeline, on the first running
     * instance (it writes nothing and reports no pass; its commands fall between two phases, counted
     * in none).
     * @return the views whose rows differ, with the counts of what differs
     */
    private List<String> outOfSync(Set<String> viewIds) throws InterruptedException, ExecutionException,
            TimeoutException {
        EngineRun checker = running.values().iterator().next();
        List<String> differing = new ArrayList<>();
        for (String viewId : viewIds) {
            VerifyReport report = checker.engine.verify(viewId.substring(0, viewId.indexOf(':')), viewId)
                .get(EngineRun.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (!report.inSync()) {
                differing.add(String.format("%s (missing %d, changed %d, extra %d%s)", viewId, report.missing(),
                        report.changed(), report.extra(), report.error() == null ? "" : ", " + report.error()));
            }
        }
        return List.copyOf(differing);
    }

    /**
     * One order written in the first tenant, settled, then the clock moved past the checkpoint
     * interval until every running instance has saved a checkpoint of {@code orders}. This server's
     * idle change streams have no resume token (no post-batch resume token, see the compatibility
     * notes), so until a first event no instance saves a position of {@code orders}; MongoDB's
     * idle streams have one. After this the cluster is as one that has run a while. It waits for
     * the checkpoints also without the wait between phases, as the first version of the run did.
     */
    WarmUp warmUp() throws InterruptedException {
        long began = System.nanoTime();
        int passesBefore = passLog.size();
        Map<String, Long> heardBefore = heardByInstance();
        setup.write(data, List.of(RollingRestart.partition(0)), writes++);
        boolean done = awaitHeardByEach(heardBefore, 1);
        Map<String, Date> stale = savedAt();
        done = done && settle(true) && awaitCheckpoints(stale);
        return new WarmUp(done, passLog.size() - passesBefore, seconds(began));
    }

    /**
     * Moves the clock past the checkpoint interval until every running instance has saved a
     * checkpoint of {@code orders} under the live set of the running ones with nothing pending, as
     * happens within seconds on a cluster whose instances take longer to restart than that. Without
     * it the next step may find a checkpoint saved before its writer took partitions over, which
     * answers for none of them (see the README: the steps as fast as the clock allows).
     * @param stale per instance, when its checkpoint was saved before it heard the phase's writes:
     *     it must save again (a checkpoint before the newest event is not alongside the others', so a
     *     newcomer resuming from one of those would not take its word); empty without writes
     */
    private boolean awaitCheckpoints(Map<String, Date> stale) {
        List<String> live = new ArrayList<>(new TreeSet<>(running.keySet()));
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            clock.advance(CHECKPOINT_STEP);
            long pollUntil = System.nanoTime() + LIVE_POLL_MILLIS * 1_000_000L;
            while (System.nanoTime() < pollUntil) {
                if (live.stream().allMatch(instance -> savedUnder(instance, live, stale.get(instance)))) {
                    return true;
                }
                keepAlive();
                Meter.sleep(20);
            }
        }
        return false;
    }

    /**
     * Whether the instance's checkpoint of orders was saved under the live set, with nothing pending,
     * and after {@code stale} when given.
     */
    private boolean savedUnder(String instance, List<String> live, @Nullable Date stale) {
        Document checkpoint = checkpointOf(instance);
        if (checkpoint == null || checkpoint.get("token") == null) {
            return false;
        }
        if (stale != null && !checkpoint.getDate("at").after(stale)) {
            return false;
        }
        List<String> savedLive = checkpoint.getList("live", String.class, List.of());
        return new TreeSet<>(savedLive).equals(new TreeSet<>(live))
                && checkpoint.getList("pending", String.class, List.of()).isEmpty();
    }

    private @Nullable Document checkpointOf(String instance) {
        return data.getCollection(base.checkpointsCollection())
            .find(Filters.eq("_id", "stream:" + Scenario.ORDERS + "@" + instance)).first();
    }

    /**
     * Per running instance with a checkpoint of orders: when it was saved (the engine's clock). Read
     * once every instance heard a phase's writes, a save after it covers them.
     */
    private Map<String, Date> savedAt() {
        Map<String, Date> saved = new TreeMap<>();
        for (String instance : running.keySet()) {
            Document checkpoint = checkpointOf(instance);
            if (checkpoint != null && checkpoint.getDate("at") != null) {
                saved.put(instance, checkpoint.getDate("at"));
            }
        }
        return saved;
    }

    /**
     * The checkpoint of orders an instance starting now resumes from, as the engine chooses it (its
     * own, else the newest by the time saved), in words ("c's, live b, c, 12 pending"); read through
     * the report's own client, in no count.
     */
    private String toResumeFrom(String instance) {
        Document chosen = checkpointOf(instance);
        if (chosen == null || chosen.get("token") == null) {
            chosen = data.getCollection(base.checkpointsCollection())
                .find(Filters.and(Filters.eq("kind", "stream"), Filters.eq("collection", Scenario.ORDERS),
                        Filters.exists("token")))
                .sort(new Document("at", -1))
                .first();
        }
        if (chosen == null) {
            return "none";
        }
        return String.format("%s's, live %s, %d pending", chosen.getString("instance"),
                String.join(" ", chosen.getList("live", String.class, List.of())),
                chosen.getList("pending", String.class, List.of()).size());
    }

    /** Whether a checkpoint of orders with a position exists: the instance's, or any one's when null. */
    private boolean checkpointOfOrders(@Nullable String instance) {
        Bson saved = Filters.and(Filters.eq("kind", "stream"), Filters.eq("collection", Scenario.ORDERS),
                Filters.exists("token"));
        return data.getCollection(base.checkpointsCollection())
            .countDocuments(instance == null ? saved : Filters.and(saved, Filters.eq("instance", instance))) > 0;
    }

    private Step step(String stopped, String startedAs, Writes withWrites) throws InterruptedException {
        Set<String> liveBefore = new TreeSet<>(running.keySet());
        List<Phase> phases = new ArrayList<>();

        Mark mark = mark();
        List<String> written = List.of();
        boolean settled = true;
        List<Logged> beforeStop = List.of();
        Map<String, Date> stale = Map.of();
        if (withWrites == Writes.UNAPPLIED) {
            // Heard by every instance, the clock not moved: the stopping one's debounced passes have not run
            written = writtenTenants(stopped, liveBefore);
            Map<String, Long> heardBefore = heardByInstance();
            int passesBefore = passLog.size();
            setup.write(data, written, writes++);
            settled = awaitHeardByEach(heardBefore, written.size());
            // The stream hands a change to the listener before it marks the partition: a moment for the last marks
            if (written.stream().anyMatch(tenant -> Rendezvous.owner(tenant, liveBefore).equals(stopped))) {
                settled &= awaitPending(running.get(stopped));
            }
            Meter.sleep(ScenarioRun.QUIET_MILLIS);
            beforeStop = List.copyOf(new ArrayList<>(passLog).subList(passesBefore, passLog.size()));
            stale = savedAt();
        }
        EngineRun leaving = running.remove(stopped);
        long closeBegan = System.nanoTime();
        leaving.engine.close();
        long closeNanos = System.nanoTime() - closeBegan;
        leaving.client.close();
        settled &= awaitLive();
        settled &= settle(false);
        settled &= afterPhase(stale);
        mark = phase(Stage.TAKEOVER, mark, settled, phases);

        if (withWrites == Writes.WHILE_DOWN) {
            written = writtenTenants(stopped, liveBefore);
            Map<String, Long> heardBefore = heardByInstance();
            setup.write(data, written, writes++);
            settled = awaitHeardByEach(heardBefore, written.size());
            stale = savedAt();
            settled &= settle(false);
            settled &= afterPhase(stale);
            mark = phase(Stage.WRITES, mark, settled, phases);
        }

        String resumesFrom = toResumeFrom(startedAs);
        long startBegan = System.nanoTime();
        EngineRun back = launch(startedAs);
        settled = awaitRunning(back);
        long startNanos = System.nanoTime() - startBegan;
        settled &= awaitLive();
        settled &= settle(true);
        settled &= afterPhase(Map.of());
        phase(Stage.BACK, mark, settled, phases);
        long ofStopped = written.stream().filter(tenant -> Rendezvous.owner(tenant, liveBefore).equals(stopped)).count();
        return new Step(stopped, startedAs, written, ofStopped, beforeStop, closeNanos, resumesFrom, startNanos,
                phases);
    }

    /**
     * The end of a phase once settled: fresh checkpoints (saved after {@code stale}, with writes),
     * unless no instance has a position of orders yet or the run goes without that wait.
     */
    private boolean afterPhase(Map<String, Date> stale) {
        return !checkpointWait || !checkpointOfOrders(null) || awaitCheckpoints(stale);
    }

    /**
     * The tenants a step writes to: {@link RollingRestart#WRITES_PER_STEP} of those the stopped
     * instance owned (the ones that move away and back), spread over them; others when it had fewer.
     */
    private List<String> writtenTenants(String stopped, Set<String> liveBefore) {
        List<String> owned = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (String partition : setup.partitions()) {
            (Rendezvous.owner(partition, liveBefore).equals(stopped) ? owned : others).add(partition);
        }
        int count = Math.min(RollingRestart.WRITES_PER_STEP, setup.tenants);
        List<String> chosen = new ArrayList<>(count);
        int fromOwned = Math.min(count, owned.size());
        for (int index = 0; index < fromOwned; index++) {
            chosen.add(owned.get((int) ((long) index * owned.size() / fromOwned)));
        }
        chosen.addAll(others.subList(0, count - fromOwned));
        return chosen;
    }

    private String newId() {
        return String.valueOf((char) ('a' + FIRST_IDS.size() + newIds++));
    }

    private EngineRun launch(String instance) {
        // Its stream resumes from its own checkpoint, else the newest other one: any will do.
        openedFromCheckpoint.put(instance, checkpointOfOrders(null));
        EngineRun engine = new EngineRun(mongo, base, DATABASE, instance, clock, traffic);
        engine.listener.onPassFinish(report -> passLog.add(new Logged(instance, report)));
        running.put(instance, engine);
        started.add(engine);
        engine.engine.start();
        return engine;
    }

    /** What the counters say at one moment. */
    private record Mark(long nanos, int passes, Map<String, Long> commands, CollectionTraffic.Snapshot traffic) {
    }

    private Mark mark() {
        Map<String, Long> commands = new TreeMap<>();
        for (EngineRun engine : started) {
            engine.commands.snapshot().forEach((name, count) -> commands.merge(name, count, Long::sum));
        }
        return new Mark(System.nanoTime(), passLog.size(), commands, traffic.snapshot());
    }

    /** Adds the phase since {@code from} and returns the mark it ends at. */
    private Mark phase(Stage stage, Mark from, boolean settled, List<Phase> phases) {
        Mark to = mark();
        List<Logged> passes = new ArrayList<>(passLog).subList(from.passes(), to.passes());
        phases.add(new Phase(stage, to.nanos() - from.nanos(), List.copyOf(passes),
                CommandCounter.between(from.commands(), to.commands()), to.traffic().since(from.traffic()), settled));
        return to;
    }

    private boolean awaitRunning(EngineRun engine) throws InterruptedException {
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (engine.listener.running.await(100, TimeUnit.MILLISECONDS)) {
                return true;
            }
            keepAlive();
        }
        return false;
    }

    /**
     * Moves the clock one heartbeat at a time until every running instance sees exactly the running
     * ones live (the stopped one gone, the started one ready).
     */
    private boolean awaitLive() {
        Set<String> expected = Set.copyOf(running.keySet());
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            clock.advance(base.partitionLease().dividedBy(3));
            lastBeat = System.nanoTime();
            long pollUntil = System.nanoTime() + LIVE_POLL_MILLIS * 1_000_000L;
            while (System.nanoTime() < pollUntil) {
                if (running.values().stream().allMatch(engine -> EngineDiagnostics.liveInstances(engine.engine)
                    .equals(expected))) {
                    return true;
                }
                Meter.sleep(10);
            }
        }
        return false;
    }

    /**
     * Rounds of one second on the clock until two in a row start no pass, hear no change and leave
     * every instance idle and caught up (and, when asked, every view ok in every instance's snapshot).
     */
    private boolean settle(boolean allOk) throws InterruptedException {
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        int quietRounds = 0;
        while (System.nanoTime() < deadline) {
            long moved = moved();
            clock.advance(ROUND);
            boolean idle = awaitIdle(deadline);
            Meter.sleep(ScenarioRun.QUIET_MILLIS);
            idle &= awaitIdle(deadline);
            boolean quiet = idle && moved == moved()
                    && running.values().stream().allMatch(engine -> engine.engine.caughtUp());
            quietRounds = quiet ? quietRounds + 1 : 0;
            if (quietRounds >= 2 && (!allOk || allOk())) {
                return true;
            }
        }
        return false;
    }

    /** Waits until no running instance has a task in flight, beating for them meanwhile. */
    private boolean awaitIdle(long deadline) {
        while (running.values().stream().anyMatch(engine -> engine.engine.inFlight() != 0)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            keepAlive();
            Meter.sleep(5);
        }
        keepAlive();
        return true;
    }

    /** Every running instance beats when the last beat is {@link #KEEP_ALIVE} old in wall time. */
    private void keepAlive() {
        if (System.nanoTime() - lastBeat < KEEP_ALIVE.toNanos()) {
            return;
        }
        for (EngineRun engine : running.values()) {
            if (engine.engine.snapshot().state() == EngineState.RUNNING) {
                EngineDiagnostics.beat(engine.engine);
            }
        }
        lastBeat = System.nanoTime();
    }

    /** Passes started and changes heard by the running instances: what a round watches for movement. */
    private long moved() {
        long moved = 0;
        for (EngineRun engine : running.values()) {
            moved += engine.listener.passesStarted.get() + engine.listener.changes.get();
        }
        return moved;
    }

    /** Per running instance: the changes of the orders it heard so far. */
    private Map<String, Long> heardByInstance() {
        Map<String, Long> heard = new TreeMap<>();
        running.forEach((instance, engine) -> heard.put(instance, engine.listener.changesOf(Scenario.ORDERS)));
        return heard;
    }

    /**
     * Waits until every running instance heard {@code more} changes of the orders more than it had
     * (each stream hears every change of its collection, whoever owns the partition); beats meanwhile,
     * the clock stays.
     */
    private boolean awaitHeardByEach(Map<String, Long> before, int more) {
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        while (running.entrySet().stream().anyMatch(entry -> entry.getValue().listener.changesOf(Scenario.ORDERS)
                < before.getOrDefault(entry.getKey(), 0L) + more)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            keepAlive();
            Meter.sleep(5);
        }
        return true;
    }

    /** Waits until the instance has a partition marked and not run: its passes wait for the clock. */
    private boolean awaitPending(EngineRun engine) {
        long deadline = System.nanoTime() + EngineRun.WAIT.toNanos();
        while (engine.engine.caughtUp()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            keepAlive();
            Meter.sleep(5);
        }
        return true;
    }

    /**
     * Whether every view's status in the views collection says {@code ok}: an instance's snapshot
     * knows the state of the views it runs, and may show the others' as pending.
     */
    private boolean allOk() {
        long ok = data.getCollection(base.viewsCollection())
            .countDocuments(Filters.eq(base.statusField() + ".state", ViewState.OK.value()));
        return ok >= setup.views().size();
    }

    /** Per running instance: its views by state ("a: 300 ok"). */
    private String described() {
        List<String> parts = new ArrayList<>();
        running.forEach((instance, engine) -> {
            Map<String, Integer> states = new TreeMap<>();
            engine.engine.snapshot().views().forEach(view -> states.merge(view.state().value(), 1, Integer::sum));
            List<String> counts = new ArrayList<>();
            states.forEach((state, count) -> counts.add(String.format("%,d %s", count, state)));
            parts.add(instance + " (" + engine.engine.snapshot().state() + "): "
                    + (counts.isEmpty() ? "no view" : String.join(", ", counts)));
        });
        return String.join("; ", parts);
    }

    /** Key-scoped passes among some. */
    static long keyScoped(List<Logged> passes) {
        return passes.stream().filter(logged -> logged.report().scope() == PassScope.KEYS).count();
    }

    private static double seconds(long began) {
        return (System.nanoTime() - began) / 1e9;
    }

    @Override
    public void close() {
        for (EngineRun engine : running.values()) {
            engine.close();
        }
        running.clear();
        setupClient.close();
        mongo.close();
    }
}
