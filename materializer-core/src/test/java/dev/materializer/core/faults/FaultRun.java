package dev.materializer.core.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.materializer.core.engine.EngineProbe;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.convergence.ConvergenceChecker;
import dev.materializer.core.convergence.ConvergenceReport;
import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.TcpProxy;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * One scenario on one seed: the database, a manual clock shared by its engines (a node may keep its
 * own, moved by the same steps), the shop writing
 * the sources, the nodes started so far, and the driver that moves time until the views converge.
 * Closes every node, client and proxy it made.
 *
 * <p>Driving: each step moves the clock by {@link #STEP} (debounce, max delay, rewatch and backoff
 * timers, heartbeats) and drains every live node; after each step the checker compares every view
 * with a fresh run. The views have converged when nothing diverges and every view expected to run
 * is checked. They have not when nothing happens any more — no node heard a change, ran a pass or
 * reopened a stream for {@link #QUIET_STEPS} steps and {@link #QUIET_TIME} of real time, every node
 * running with its streams open, and every node seeing exactly the live nodes as live — while
 * something still diverges; or, at the latest, after {@link #LONGEST_DRIVE}. Leases of instances
 * are in server time, so after a crash the quiet also waits for the partition lease to run out
 * since the drive began, and then for each survivor to have seen it run out: a survivor beats on
 * the engine clock, which the steps move, and on a loaded machine steps are slow, so its first
 * beat after the lease ran out can come well after it (a quiet that did not wait for it once
 * judged a handover still to come a divergence).
 *
 * <p>When the drive gives up, a {@link Verdict} tells a lost mark from slow convergence: it keeps
 * stepping until every live engine is quiescent ({@link EngineProbe.Quiescence}: every stream
 * heard every event written before the check, nothing marked, armed, queued or running) and every
 * node sees the live nodes as live (no handover still to come), then checks again. Views that still
 * diverge then are a lost mark — nothing in the engines would ever run the change; views that
 * converge then converged late (the quiet above misjudged a slow engine), which is no finding; and
 * engines that never get quiescent within the verdict's time leave a divergence that is not shown
 * to be a lost mark.
 *
 * <p>Every run records a {@link Timeline} and the engines' DEBUG log ({@link RunLog}); a run that
 * fails, or converges late, keeps both in {@link #logFile()} under {@code target/fault-runs}.
 */
final class FaultRun implements AutoCloseable {

    static final Duration STEP = Duration.ofMillis(250);

    static final Duration DEBOUNCE = Duration.ofMillis(100);

    static final Duration REWATCH = Duration.ofMillis(200);

    static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

    /** The partition lease unless a scenario sets another: short, as the drive waits it out in real time. */
    static final Duration PARTITION_LEASE = Duration.ofSeconds(2);

    static final Duration PASS_LEASE = Duration.ofSeconds(2);

    /** How many views a reconciler checks per second of the run's clock, when a scenario turns it on. */
    static final double RECONCILE_PER_SECOND = 20;

    static final int QUIET_STEPS = 16;

    static final Duration QUIET_TIME = Duration.ofSeconds(1);

    static final Duration LONGEST_DRIVE = Duration.ofSeconds(45);

    /** Steps taken after the views converged, to see that they stay so. */
    static final int STEADY_STEPS = 8;

    /** How long a verdict waits, beyond the partition lease, for the engines to get quiescent. */
    static final Duration VERDICT_TIME = Duration.ofSeconds(10);

    /** How long a verdict waits for the streams, which poll in real time, to poll past a moment. */
    static final Duration STREAM_WAIT = Duration.ofSeconds(3);

    /** Where failed runs keep their timeline and log. */
    static final Path LOG_DIRECTORY = Path.of("target", "fault-runs");

    final String scenario;

    final long seed;

    final SplittableRandom random;

    final TestMongo mongo;

    final MongoDatabase db;

    final ManualClock clock = new ManualClock();

    /** Clocks of nodes that keep their own time, moved by the steps with the shared one. */
    private final List<ManualClock> ownClocks = new ArrayList<>();

    final Shop shop;

    final ConvergenceChecker checker;

    private final List<Node> nodes = new ArrayList<>();

    private Duration partitionLease = PARTITION_LEASE;

    private Duration generationGrace = MaterializerOptions.DEFAULT_GENERATION_GRACE;

    /** Off unless a scenario turns it on: a reconcile round would heal what a fault lost and hide it from the checker. */
    private Duration reconcileInterval = Duration.ZERO;

    private final List<AutoCloseable> resources = new ArrayList<>();

    private final List<String> log = new ArrayList<>();

    final Timeline timeline = new Timeline(clock::now);

    private final RunLog runLog = new RunLog();

    /** The live sets each node saw at the last look, to write their changes on the timeline. */
    private final Map<String, Set<String>> liveSeen = new HashMap<>();

    /** The divergent views at the last check, to write their changes on the timeline. */
    private List<String> lastDivergent = List.of();

    /** Set when the drive gave up but the views converged once the engines were quiescent. */
    private Verdict lateConvergence;

    FaultRun(String scenario, long seed, TestMongo mongo) {
        this.scenario = scenario;
        this.seed = seed;
        timeline.add("driver", "run " + scenario + " seed " + seed);
        this.random = new SplittableRandom(seed);
        this.mongo = mongo;
        this.db = mongo.database();
        this.shop = new Shop(db, random, 3, MaterializerOptions.DEFAULT_VIEWS_COLLECTION);
        this.checker = new ConvergenceChecker(db, options("checker", new EngineEvents()));
    }

    /** The options of a node: short timers on the manual clock, short leases, pre-images on. */
    MaterializerOptions options(String instanceId, EngineEvents events) {
        return options(instanceId, events, clock);
    }

    private MaterializerOptions options(String instanceId, EngineEvents events, ManualClock clock) {
        return MaterializerOptions.builder()
            .instanceId(instanceId)
            .debounce(DEBOUNCE)
            .rewatch(REWATCH)
            .maxBackoff(MAX_BACKOFF)
            .partitionLease(partitionLease)
            .passLease(PASS_LEASE)
            .generationGrace(generationGrace)
            .reconcileInterval(reconcileInterval)
            // Many per second of the run's clock: a round of a shop's views takes a few steps.
            .reconcileMaxPerSecond(RECONCILE_PER_SECOND)
            // Updates and deletes route by their pre-images and update descriptions, as on MongoDB
            // (the in-process server has both): the key-scoped and pre-image paths run under faults
            .enablePreImages(true)
            .clock(clock)
            .listener(events)
            .build();
    }

    /** Sets the partition lease of the nodes made from now on. */
    void partitionLease(Duration lease) {
        this.partitionLease = lease;
    }

    Duration partitionLease() {
        return partitionLease;
    }

    /** Sets the generation grace of the nodes made from now on (server time, which is real time here). */
    void generationGrace(Duration grace) {
        this.generationGrace = grace;
    }

    Duration generationGrace() {
        return generationGrace;
    }

    /** Turns the reconciler on, every {@code interval} of the run's clock, for the nodes made from now on. */
    void reconcileEvery(Duration interval) {
        this.reconcileInterval = interval;
    }

    /** A node on the test's own client. */
    Node node(String instanceId) {
        return node(instanceId, mongo.client());
    }

    Node node(String instanceId, MongoClient client) {
        return node(instanceId, client, clock);
    }

    /**
     * A node whose timers run on a clock of its own: the steps move it with the shared one, and a
     * scenario may move the shared one alone to hold the node's timers back.
     */
    Node nodeWithItsOwnClock(String instanceId, MongoClient client) {
        ManualClock own = new ManualClock(clock.now());
        ownClocks.add(own);
        return node(instanceId, client, own);
    }

    private Node node(String instanceId, MongoClient client, ManualClock nodeClock) {
        EngineEvents events = new EngineEvents(instanceId, timeline);
        Node node = new Node(instanceId, client, db.getName(), options(instanceId, events, nodeClock), events,
                shop::eventsWritten);
        nodes.add(node);
        note("node " + instanceId + " made");
        return node;
    }

    /** A proxy to the server, closed with the run. */
    TcpProxy proxy() throws java.io.IOException {
        TcpProxy proxy = TcpProxy.start(mongo.connectionString().getHosts().get(0));
        resources.add(0, proxy);
        return proxy;
    }

    /**
     * A client through the proxy with short timeouts, so operations fail fast while it is cut;
     * closed with the run, after the nodes.
     */
    MongoClient clientThrough(TcpProxy proxy) {
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString("mongodb://" + proxy.address()))
            .applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(250, TimeUnit.MILLISECONDS))
            .applyToSocketSettings(socket -> socket.connectTimeout(250, TimeUnit.MILLISECONDS))
            .applyToServerSettings(server -> server.heartbeatFrequency(500, TimeUnit.MILLISECONDS)
                .minHeartbeatFrequency(100, TimeUnit.MILLISECONDS))
            .build());
        resources.add(0, client);
        return client;
    }

    /**
     * Moves time until the streams of the sources the node heard changes of saved a checkpoint of
     * the node at or after that engine time, so what it heard until then is behind the saved
     * position. (A stream that heard nothing since it opened from now has no position to save.)
     */
    void awaitCheckpointsSince(Node node, Instant time) {
        awaitCheckpointsSince(node, time, this::step);
    }

    /**
     * As {@link #awaitCheckpointsSince(Node, Instant)}, but moving the shared clock only, and draining
     * only the given nodes after each step.
     */
    void awaitCheckpointsSince(Node node, Instant time, Node... draining) {
        awaitCheckpointsSince(node, time, () -> {
            clock.advance(STEP);
            for (Node each : draining) {
                each.drain();
            }
        });
    }

    private void awaitCheckpointsSince(Node node, Instant time, Runnable step) {
        for (String source : new String[] {Shop.ORDERS, Shop.CUSTOMERS}) {
            if (node.events.changesFrom(source) > 0) {
                Node.waitFor("a checkpoint of " + source + " by " + node.id + " since " + time).until(() -> {
                    step.run();
                    return savedSince(node, source, time);
                });
            }
        }
    }

    /**
     * Whether a checkpoint of the source's stream, saved by the node, is at or after that engine time.
     * Read by its fields, not its {@code _id}: a checkpoint names its collection, and its instance
     * where checkpoints are per instance.
     */
    private boolean savedSince(Node node, String source, Instant time) {
        Bson mine = Filters.and(Filters.eq("kind", "stream"), Filters.eq("collection", source),
                Filters.gte("at", Date.from(time)),
                Filters.or(Filters.eq("instance", node.id), Filters.exists("instance", false)));
        return db.getCollection(MaterializerOptions.DEFAULT_CHECKPOINTS_COLLECTION).countDocuments(mine) > 0;
    }

    /** Moves time until each node sees exactly the given ones live. */
    void awaitLive(Node... nodes) {
        Set<String> ids = new TreeSet<>();
        for (Node node : nodes) {
            ids.add(node.id);
        }
        Node.waitFor("instances " + ids + " to see each other").until(() -> {
            step();
            for (Node node : nodes) {
                if (!EngineProbe.liveInstances(node.engine).equals(ids)) {
                    return false;
                }
            }
            return true;
        });
    }

    /**
     * Steps until every live engine is quiescent ({@link EngineProbe.Quiescence}): every stream heard
     * every event committed before the call — the engines' own writes to targets that views read
     * included, which the shop's counts of heard changes do not cover — and nothing is marked,
     * armed, queued or running.
     */
    void awaitQuiescent() {
        long since = System.nanoTime();
        Node.waitFor("every live engine to be quiescent").until(() -> {
            step();
            return liveNodes().stream().allMatch(node -> EngineProbe.quiescence(node.engine, since).quiescent());
        });
    }

    List<Node> liveNodes() {
        return nodes.stream().filter(Node::alive).toList();
    }

    /** A line of what the scenario did, for the failure message and the timeline. */
    void note(String line) {
        log.add(line);
        timeline.add("driver", line);
    }

    /** One step: the clocks move, every live node drains. */
    void step() {
        advance(1);
        liveNodes().forEach(Node::drain);
        watchLiveSets();
    }

    /** Writes on the timeline each live set a node sees for the first time since the last look. */
    private void watchLiveSets() {
        for (Node node : liveNodes()) {
            Set<String> live = new TreeSet<>(EngineProbe.liveInstances(node.engine));
            if (!live.equals(liveSeen.put(node.id, live))) {
                timeline.add(node.id, "sees live " + live);
            }
        }
    }

    /** Runs the checker, and writes on the timeline when the views that diverge change. */
    private ConvergenceReport check() {
        ConvergenceReport report = checker.check();
        List<String> divergent = report.divergences().stream().map(ConvergenceReport.Divergence::view).sorted().toList();
        if (!divergent.equals(lastDivergent)) {
            timeline.add("checker", divergent.isEmpty() ? "no view diverges" : "diverge: " + divergent);
            lastDivergent = divergent;
        }
        return report;
    }

    /** Moves the clocks by a number of steps without waiting for the nodes. */
    void advance(int steps) {
        for (int i = 0; i < steps; i++) {
            clock.advance(STEP);
            ownClocks.forEach(own -> own.advance(STEP));
        }
    }

    /**
     * Drives the nodes until every view converged and stays so.
     * @param phase what just happened, for the failure message
     * @param mustConverge the views that must be checked and equal
     * @param mayBeLeftOut the views that may be errored or not run; any other not checked is a finding
     * @return the last report
     */
    ConvergenceReport converge(String phase, Set<String> mustConverge, Set<String> mayBeLeftOut) {
        note("drive: " + phase);
        long started = System.nanoTime();
        long lastActivity = activity();
        long quietSince = System.nanoTime();
        int quietSteps = 0;
        ConvergenceReport report;
        while (true) {
            step();
            report = check();
            if (converged(report, mustConverge, mayBeLeftOut)) {
                break;
            }
            long now = System.nanoTime();
            // Before the activity: a beat publishes a live set after it queued the catch-ups it gives, so a
            // settled live set read first means those catch-ups show in the activity or the lanes read next.
            boolean settled = unsettledOwnership() == null;
            long activity = activity();
            boolean quiet = activity == lastActivity && liveNodes().stream().allMatch(Node::quiet);
            if (!quiet) {
                lastActivity = activity;
                quietSince = now;
                quietSteps = 0;
            }
            else {
                quietSteps++;
            }
            // A crashed instance keeps its partitions until its heartbeat is a lease old, in server time,
            // and until each survivor's next beat has seen that: only then do its partitions move.
            boolean leasesOver = !crashed() || now - started > partitionLease.plus(QUIET_TIME).toNanos();
            leasesOver = leasesOver && settled;
            String gaveUp = null;
            if (quietSteps >= QUIET_STEPS && now - quietSince > QUIET_TIME.toNanos() && leasesOver) {
                gaveUp = "the views did not converge and the engines went quiet";
            }
            else if (now - started > LONGEST_DRIVE.toNanos()) {
                gaveUp = "the views did not converge within " + LONGEST_DRIVE + " while the engines kept working";
            }
            if (gaveUp != null) {
                Verdict verdict = verdict(gaveUp, mustConverge, mayBeLeftOut);
                if (verdict.kind() != Verdict.Kind.CONVERGED_LATE) {
                    throw new FaultFound(this, phase, gaveUp + "; " + verdict.description(), verdict.report(),
                            mustConverge, mayBeLeftOut, verdict.kind());
                }
                lateConvergence = verdict;
                note("converged late: " + verdict.description());
                break;
            }
            // The streams poll in real time: give them a turn between steps rather than race the clock ahead.
            LockSupport.parkNanos(Node.POLL.toNanos());
        }
        for (int i = 0; i < STEADY_STEPS; i++) {
            step();
        }
        report = check();
        if (!converged(report, mustConverge, mayBeLeftOut)) {
            String what = "the views converged, then diverged again";
            Verdict verdict = verdict(what, mustConverge, mayBeLeftOut);
            throw new FaultFound(this, phase, what + "; " + verdict.description(), verdict.report(), mustConverge,
                    mayBeLeftOut, verdict.kind() == Verdict.Kind.CONVERGED_LATE ? Verdict.Kind.NOT_QUIESCENT : verdict.kind());
        }
        note("converged: " + report.converged().size() + " view(s) equal, " + report.unchecked().size() + " not checked");
        return report;
    }

    /**
     * Whether the views still diverge once the engines have nothing left to do. Steps until every
     * live engine is quiescent, every node sees exactly the live nodes as live, and both still hold
     * after a check with no activity between; at most the partition lease plus
     * {@link #VERDICT_TIME}.
     */
    private Verdict verdict(String gaveUp, Set<String> mustConverge, Set<String> mayBeLeftOut) {
        note("verdict after \"" + gaveUp + "\": waiting for the engines to be quiescent");
        long deadline = System.nanoTime() + partitionLease.plus(VERDICT_TIME).toNanos();
        String busy = "no look yet";
        ConvergenceReport report = check();
        while (System.nanoTime() < deadline) {
            step();
            Look first = look();
            if (first.busy() == null) {
                long activity = activity();
                report = check();
                // Quiescent again after the check, and nothing heard or run since the first look.
                Look second = look();
                if (second.busy() == null && activity == activity()) {
                    String how = "every live engine was quiescent (" + describeQuiescence() + ")"
                            + (second.stuck() == null ? "" : " but for marks stuck in the scheduler: " + second.stuck());
                    Verdict verdict = converged(report, mustConverge, mayBeLeftOut)
                            ? new Verdict(Verdict.Kind.CONVERGED_LATE, report, "the views converged once " + how)
                            : new Verdict(Verdict.Kind.LOST_MARK, report, "LOST MARK: " + how
                                    + ", yet the views diverge: nothing in the engines will run those changes");
                    note("verdict: " + verdict.description());
                    return verdict;
                }
                busy = second.busy() == null ? "activity during the check" : second.busy();
            }
            else {
                busy = first.busy();
            }
            LockSupport.parkNanos(Node.POLL.toNanos());
        }
        report = check();
        Verdict verdict = converged(report, mustConverge, mayBeLeftOut)
                ? new Verdict(Verdict.Kind.CONVERGED_LATE, report, "the views converged while the engines still worked: "
                        + busy)
                : new Verdict(Verdict.Kind.NOT_QUIESCENT, report, "not shown to be a lost mark: the engines were not"
                        + " quiescent within " + partitionLease.plus(VERDICT_TIME) + ": " + busy);
        note("verdict: " + verdict.description());
        return verdict;
    }

    /**
     * One look at the live engines.
     * @param busy why they are not quiescent, or null when they are (stuck marks aside)
     * @param stuck the nodes whose scheduler holds nothing but stuck marks, or null when none does
     */
    private record Look(String busy, String stuck) {
    }

    /**
     * Whether the live engines are quiescent: the streams get a moment taken now and the time to
     * poll past it (they poll in real time), then each node's live set and each engine's picture
     * are read. An engine whose scheduler holds nothing but stuck marks counts as quiescent, its
     * stuck marks named apart.
     */
    private Look look() {
        long since = System.nanoTime();
        List<Node> live = liveNodes();
        long until = since + STREAM_WAIT.toNanos();
        while (System.nanoTime() < until
                && live.stream().anyMatch(node -> !EngineProbe.quiescence(node.engine, since).streamsBehind().isEmpty())) {
            LockSupport.parkNanos(Node.POLL.toNanos());
        }
        live.forEach(Node::drain);
        List<String> reasons = new ArrayList<>();
        List<String> stuck = new ArrayList<>();
        // The live sets first: a catch-up a beat gives is queued before its live set is published.
        String unsettled = unsettledOwnership();
        if (unsettled != null) {
            reasons.add(unsettled);
        }
        for (Node node : live) {
            EngineProbe.Quiescence quiescence = EngineProbe.quiescence(node.engine, since);
            if (quiescence.stuckOnly()) {
                stuck.add(node.id + " " + quiescence.backlog().stuck());
            }
            else if (!quiescence.quiescent()) {
                reasons.add(node.id + " " + quiescence);
            }
        }
        return new Look(reasons.isEmpty() ? null : String.join("; ", reasons),
                stuck.isEmpty() ? null : String.join("; ", stuck));
    }

    /**
     * Which live nodes see another live set than the live nodes (a handover is still to come:
     * a dead node's lease has not run out for them yet, or a live one looks dead to them), or null
     * when every live node sees exactly the live nodes.
     */
    private String unsettledOwnership() {
        List<Node> live = liveNodes();
        Set<String> ids = new TreeSet<>();
        live.forEach(node -> ids.add(node.id));
        List<String> reasons = new ArrayList<>();
        for (Node node : live) {
            Set<String> sees = new TreeSet<>(EngineProbe.liveInstances(node.engine));
            if (!sees.equals(ids)) {
                reasons.add(node.id + " sees live " + sees + ", not " + ids + " (a handover is still to come)");
            }
        }
        return reasons.isEmpty() ? null : String.join("; ", reasons);
    }

    private String describeQuiescence() {
        long since = System.nanoTime();
        List<String> described = new ArrayList<>();
        for (Node node : liveNodes()) {
            described.add(node.id + " sees live " + new TreeSet<>(EngineProbe.liveInstances(node.engine)) + ", "
                    + EngineProbe.quiescence(node.engine, since).backlog());
        }
        return String.join("; ", described);
    }

    /** The verdict when the drive converged late; null when it converged in time or failed. */
    Verdict lateConvergence() {
        return lateConvergence;
    }

    /** What a drive that gave up found once it looked at the engines. */
    record Verdict(Kind kind, ConvergenceReport report, String description) {

        enum Kind {
            /** Quiescent engines, diverged views: a change no engine will ever run. */
            LOST_MARK,
            /** Diverged views while the engines still had work or a handover to come. */
            NOT_QUIESCENT,
            /** The views converged once the engines were given the time. */
            CONVERGED_LATE
        }
    }

    /** The file a failed run keeps its timeline and log in. */
    Path logFile() {
        return LOG_DIRECTORY.resolve(scenario + "-seed-" + seed + ".log");
    }

    /**
     * Writes the run's outcome, what the scenario did, the timeline and the log to {@link #logFile()}.
     * @return the file
     */
    Path keepLog(String outcome, String message) {
        List<String> lines = new ArrayList<>();
        lines.add("scenario " + scenario + ", seed " + seed + ": " + outcome);
        lines.add("replay: " + FaultSeeds.replayCommand(scenario, seed));
        lines.add("");
        lines.add(message);
        lines.add("");
        lines.add("== timeline (real time since the run began, engine time, who, what) ==");
        lines.addAll(timeline.lines());
        lines.add("");
        lines.add("== log (the engines at DEBUG) ==");
        lines.addAll(runLog.lines());
        try {
            Files.createDirectories(LOG_DIRECTORY);
            Files.write(logFile(), lines, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return logFile();
    }

    /** Drives until every view of the shop converged; no view may be left out. */
    ConvergenceReport converge(String phase) {
        return converge(phase, shop.viewNames(), Set.of());
    }

    private static boolean converged(ConvergenceReport report, Set<String> mustConverge, Set<String> mayBeLeftOut) {
        if (!report.hasNoDivergence() || !report.converged().containsAll(mustConverge)) {
            return false;
        }
        return mayBeLeftOut.containsAll(report.uncheckedViews());
    }

    private boolean crashed() {
        return nodes.stream().anyMatch(Node::crashed);
    }

    private long activity() {
        long activity = 0;
        for (Node node : nodes) {
            activity += node.events.activity();
        }
        return activity;
    }

    String describeNodes() {
        List<String> described = new ArrayList<>();
        nodes.forEach(node -> described.add(node.describe()));
        return String.join("; ", described);
    }

    List<String> log() {
        return List.copyOf(log);
    }

    /** Views the report left out that the scenario did not allow. */
    static Set<String> unexpectedlyLeftOut(ConvergenceReport report, Set<String> mustConverge, Set<String> mayBeLeftOut) {
        Set<String> left = new LinkedHashSet<>(report.uncheckedViews());
        left.removeAll(mayBeLeftOut);
        Set<String> missing = new LinkedHashSet<>(mustConverge);
        missing.removeAll(report.converged());
        // A view that diverged was checked: the report shows it among the divergences.
        report.divergences().forEach(divergence -> missing.remove(divergence.view()));
        left.addAll(missing);
        return left;
    }

    /**
     * Empties the in-process server's oplog once the run's engines are closed. That server keeps
     * every event of the JVM's life in one oplog, and every poll of every change stream scans all
     * of it, so without this each run is slower than the one before: a soak of 40 seeds spent most
     * of its time there. No stream reads it between runs (each run has a database of its own and
     * its streams start from now), and the server does not record the removal in the oplog.
     */
    private void forgetTheOplog() {
        if (mongo.kind() != MongoKind.IN_PROCESS) {
            return;
        }
        try {
            mongo.client().getDatabase("local").getCollection("oplog.rs").deleteMany(new Document());
        }
        catch (RuntimeException ex) {
            note("emptying the oplog of the in-process server failed: " + ex);
        }
    }

    @Override
    public void close() {
        // Engines first (their client must outlive them), then clients and proxies.
        for (Node node : nodes) {
            try {
                if (node.alive()) {
                    node.close();
                }
            }
            catch (RuntimeException ex) {
                note("closing node " + node.id + " failed: " + ex);
            }
        }
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            }
            catch (Exception ex) {
                note("closing " + resource + " failed: " + ex);
            }
        }
        forgetTheOplog();
        runLog.close();
    }
}
