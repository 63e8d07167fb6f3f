package dev.materializer.benchmarks.cost;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import com.sun.management.GarbageCollectionNotificationInfo;
import dev.materializer.benchmarks.scale.EngineRun;
import dev.materializer.benchmarks.scale.Meter;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewKey;
import dev.materializer.core.engine.ViewMaterializer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The engine's side of the {@link HeapReport}: a JVM of its own (started by the report with a small
 * {@code -Xmx}), holding the engine, its driver and nothing else; the server runs in the report's
 * JVM. It starts an engine over a database whose views collection has one view (the report wrote
 * the sources and the view document), waits for the view's first pass (a whole pass: the target is
 * empty, every row is written), then refreshes the view (a whole pass again: every row of the
 * result read and merged with every stored row, none written). Each of the two is a phase; for each
 * it prints one line to standard output, {@code HEAP result key=value ...}:
 *
 * <ul>
 *   <li>{@code maxAfterGc}: the most heap in use right after any collection in the phase (the sum
 *       over the heap's pools of the usage after the collection, from the JVM's GC notifications):
 *       what the JVM could not free, so at most what the phase held live, plus garbage a young
 *       collection leaves in the old generation;</li>
 *   <li>{@code maxBeforeGc}: the most in use right before a collection, how full the heap got;</li>
 *   <li>{@code poolPeaks}: the sum of the heap pools' peak usages ({@code MemoryPoolMXBean}, reset at
 *       the phase's start), an upper bound of both (the pools peak at different moments), and
 *       {@code oldPeak}, the old generation's;</li>
 *   <li>{@code passAllocated}: bytes the pass's thread allocated from its start to its end
 *       ({@code getThreadAllocatedBytes}; the driver's work for the pass runs on that thread);</li>
 *   <li>{@code retained}: the heap in use after full collections at the phase's end (the engine idle);
 *       {@code baseline}: the same before the engine was made (the JVM, the driver's client);</li>
 *   <li>{@code resultBatches}: the batches of pipeline results on the view's source the driver
 *       received (the first of each {@code aggregate} and its {@code getMore}s), {@code gcs} and
 *       {@code majorGcs}.</li>
 * </ul>
 *
 * Started with {@code -XX:+ExitOnOutOfMemoryError}: a pass that runs out of heap ends the JVM (exit
 * code 3); a progress line ({@code HEAP progress ...}) every second tells the report how far it got.
 */
public final class HeapPass {

    static final String PREFIX = "HEAP ";

    static final String INSTANCE = "heap-report";

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private HeapPass() {
    }

    /** {@code HeapPass <connection string> <database> <rows> <partition> <view id> <source collection>}. */
    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        if (args.length != 6) {
            System.err.println("usage: HeapPass <connection string> <database> <rows> <partition> <view id> <source>");
            System.exit(2);
        }
        String uri = args[0];
        String database = args[1];
        int rows = Integer.parseInt(args[2]);
        ViewKey key = new ViewKey(args[3], args[4]);

        GcWatch gcs = new GcWatch();
        ResultBatches batches = new ResultBatches(args[5]);
        Passes passes = new Passes(key);
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString(uri)).addCommandListener(batches).build())) {
            long baseline = heapAfterGc();
            MaterializerOptions defaults = EngineRun.baseOptions();
            MaterializerOptions options = defaults.toBuilder().instanceId(INSTANCE)
                .maxRows(Math.max(rows, defaults.maxRows())).listener(passes).build();
            Thread progress = progress(gcs, passes);
            try (ViewMaterializer engine = new ViewMaterializer(client, database, options)) {
                // Phase 1: the start and the view's first pass, over an empty target.
                Phase first = gcs.begin("first-run", batches);
                CompletableFuture<PassReport> firstPass = passes.next();
                engine.start();
                PassReport report = firstPass.get(EngineRun.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                print(first.end(report, passes.lastAllocated(), batches, heapAfterGc(), baseline));

                // Phase 2: a refresh of the view, every row stored: read and merged, nothing written.
                Phase refresh = gcs.begin("refresh", batches);
                CompletableFuture<PassReport> refreshPass = passes.next();
                engine.refresh(key.partition(), key.id()).get(EngineRun.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                report = refreshPass.get(EngineRun.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                print(refresh.end(report, passes.lastAllocated(), batches, heapAfterGc(), baseline));
            }
            progress.interrupt();
        }
        System.out.flush();
        System.exit(0);
    }

    private static void print(Map<String, Object> figures) {
        System.out.println(PREFIX + "result " + line(figures));
        System.out.flush();
    }

    private static String line(Map<String, Object> figures) {
        return figures.entrySet().stream().map(entry -> entry.getKey() + "=" + entry.getValue())
            .collect(Collectors.joining(" "));
    }

    /** A daemon that prints how far the phase has got, every second. */
    private static Thread progress(GcWatch gcs, Passes passes) {
        Thread thread = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(1000);
                }
                catch (InterruptedException ex) {
                    return;
                }
                Phase phase = gcs.current;
                if (phase != null) {
                    Map<String, Object> figures = new LinkedHashMap<>();
                    figures.put("phase", phase.name);
                    figures.put("seconds", String.format("%.1f", (System.nanoTime() - phase.began) / 1e9));
                    figures.put("used", MEMORY.getHeapMemoryUsage().getUsed());
                    figures.put("maxAfterGc", phase.maxAfter.get());
                    figures.put("maxBeforeGc", phase.maxBefore.get());
                    figures.put("passAllocated", passes.allocatedSoFar());
                    figures.put("gcs", phase.collections.get());
                    System.out.println(PREFIX + "progress " + line(figures));
                    System.out.flush();
                }
            }
        }, "heap-pass-progress");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Heap in use after a few full collections. */
    static long heapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            System.gc();
            Meter.sleep(100);
            used = Math.min(used, MEMORY.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** One phase's figures, filled in by the GC notifications while it runs. */
    static final class Phase {

        final String name;

        final long began = System.nanoTime();

        final AtomicLong maxAfter = new AtomicLong();

        final AtomicLong maxBefore = new AtomicLong();

        final AtomicLong collections = new AtomicLong();

        final AtomicLong majors = new AtomicLong();

        private final List<MemoryPoolMXBean> pools;

        private final long batchesBefore;

        private final long usedAtStart;

        Phase(String name, List<MemoryPoolMXBean> pools, long batchesBefore) {
            this.name = name;
            this.pools = pools;
            this.batchesBefore = batchesBefore;
            this.usedAtStart = MEMORY.getHeapMemoryUsage().getUsed();
        }

        void collected(String action, long before, long after) {
            collections.incrementAndGet();
            if (action.contains("major")) {
                majors.incrementAndGet();
            }
            maxBefore.accumulateAndGet(before, Math::max);
            maxAfter.accumulateAndGet(after, Math::max);
        }

        Map<String, Object> end(PassReport report, long passAllocated, ResultBatches batches, long retained,
                long baseline) {
            long poolPeaks = 0;
            long oldPeak = 0;
            for (MemoryPoolMXBean pool : pools) {
                long peak = pool.getPeakUsage().getUsed();
                poolPeaks += peak;
                if (pool.getName().contains("Old") || pool.getName().contains("Tenured")) {
                    oldPeak = Math.max(oldPeak, peak);
                }
            }
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("phase", name);
            figures.put("outcome", report.outcome());
            figures.put("scope", report.scope());
            figures.put("written", report.rowsWritten());
            figures.put("removed", report.rowsRemoved());
            figures.put("error", report.error() == null ? "-" : report.error().replaceAll("\\s+", "_"));
            figures.put("seconds", String.format("%.1f", (System.nanoTime() - began) / 1e9));
            figures.put("passSeconds", String.format("%.1f", report.duration().toMillis() / 1e3));
            figures.put("usedAtStart", usedAtStart);
            figures.put("maxAfterGc", maxAfter.get());
            figures.put("maxBeforeGc", maxBefore.get());
            figures.put("poolPeaks", poolPeaks);
            figures.put("oldPeak", oldPeak);
            figures.put("passAllocated", passAllocated);
            figures.put("retained", retained);
            figures.put("baseline", baseline);
            figures.put("resultBatches", batches.count() - batchesBefore);
            figures.put("gcs", collections.get());
            figures.put("majorGcs", majors.get());
            figures.put("maxHeap", MEMORY.getHeapMemoryUsage().getMax());
            figures.put("gc", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(",")).replace(' ', '_'));
            return figures;
        }
    }

    /** Listens to every collection's notification and adds it to the current phase. */
    static final class GcWatch {

        private final List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP).toList();

        private final Set<String> heapPoolNames = heapPools.stream().map(MemoryPoolMXBean::getName)
            .collect(Collectors.toSet());

        volatile @Nullable Phase current;

        GcWatch() {
            for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (collector instanceof NotificationEmitter emitter) {
                    emitter.addNotificationListener((notification, handback) -> collected(notification), null, null);
                }
            }
        }

        /** A new phase, after full collections and with the pools' peaks reset. */
        Phase begin(String name, ResultBatches batches) {
            heapAfterGc();
            heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
            Phase phase = new Phase(name, heapPools, batches.count());
            current = phase;
            return phase;
        }

        private void collected(Notification notification) {
            Phase phase = current;
            if (phase == null
                    || !notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                return;
            }
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo
                .from((CompositeData) notification.getUserData());
            // System.gc() between phases is not the phase's: its cause says so.
            if (info.getGcCause().equals("System.gc()")) {
                return;
            }
            phase.collected(info.getGcAction(), heapOf(info.getGcInfo().getMemoryUsageBeforeGc()),
                    heapOf(info.getGcInfo().getMemoryUsageAfterGc()));
        }

        private long heapOf(Map<String, MemoryUsage> usage) {
            long used = 0;
            for (Map.Entry<String, MemoryUsage> pool : usage.entrySet()) {
                if (heapPoolNames.contains(pool.getKey())) {
                    used += pool.getValue().getUsed();
                }
            }
            return used;
        }
    }

    /** Hears the view's passes: hands out the next one's report, and what its thread allocated. */
    static final class Passes implements MaterializerListener {

        private final ViewKey view;

        private volatile CompletableFuture<PassReport> next = new CompletableFuture<>();

        private volatile @Nullable Thread passThread;

        private volatile long allocatedAtStart;

        private volatile long lastAllocated = -1;

        Passes(ViewKey view) {
            this.view = view;
        }

        /** A future of the next pass of the view to end; ask before it can start. */
        CompletableFuture<PassReport> next() {
            CompletableFuture<PassReport> future = new CompletableFuture<>();
            next = future;
            return future;
        }

        long lastAllocated() {
            return lastAllocated;
        }

        long allocatedSoFar() {
            Thread thread = passThread;
            if (thread == null || !(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean)) {
                return -1;
            }
            return bean.getThreadAllocatedBytes(thread.getId()) - allocatedAtStart;
        }

        @Override
        public void onPassStarted(ViewKey key) {
            if (key.equals(view)) {
                allocatedAtStart = Meter.threadAllocatedBytes();
                passThread = Thread.currentThread();
            }
        }

        @Override
        public void onPassFinished(PassReport report) {
            if (report.view().equals(view)) {
                lastAllocated = Meter.threadAllocatedBytes() - allocatedAtStart;
                passThread = null;
                next.complete(report);
            }
        }

        @Override
        public void onStateChanged(EngineState state, @Nullable String reason) {
            System.err.println("engine " + state + (reason == null ? "" : ": " + reason));
        }

        @Override
        public void onViewErrored(ViewKey key, String error) {
            System.err.println("view " + key + " errored: " + error);
        }
    }

    /**
     * Counts the batches of pipeline results on the view's source (aggregates on it that open no
     * change stream: their first batch and the getMores of their cursors) the driver received. Reads
     * only the command's name, its collection, the getMore's cursor id and the reply's cursor id;
     * the batches themselves are left alone.
     */
    static final class ResultBatches implements CommandListener {

        private final String source;

        private final Set<Integer> aggregates = ConcurrentHashMap.newKeySet();

        private final Set<Long> cursors = ConcurrentHashMap.newKeySet();

        private final AtomicLong batches = new AtomicLong();

        ResultBatches(String source) {
            this.source = source;
        }

        long count() {
            return batches.get();
        }

        @Override
        public void commandStarted(CommandStartedEvent event) {
            BsonDocument command = event.getCommand();
            if (event.getCommandName().equals("aggregate") && command.get("aggregate") != null
                    && command.get("aggregate").isString() && command.getString("aggregate").getValue().equals(source)) {
                BsonValue pipeline = command.get("pipeline");
                boolean changeStream = pipeline != null && pipeline.isArray() && !pipeline.asArray().isEmpty()
                        && pipeline.asArray().get(0).isDocument()
                        && pipeline.asArray().get(0).asDocument().containsKey("$changeStream");
                if (!changeStream) {
                    aggregates.add(event.getRequestId());
                }
            }
            else if (event.getCommandName().equals("getMore")) {
                BsonValue id = command.get("getMore");
                if (id != null && id.isInt64() && cursors.contains(id.asInt64().getValue())) {
                    batches.incrementAndGet();
                }
            }
        }

        @Override
        public void commandSucceeded(CommandSucceededEvent event) {
            if (aggregates.remove(event.getRequestId())) {
                batches.incrementAndGet();
                BsonDocument reply = event.getResponse();
                BsonValue id = reply.get("cursor") instanceof BsonDocument cursor ? cursor.get("id") : null;
                if (id != null && id.isInt64() && id.asInt64().getValue() != 0) {
                    cursors.add(id.asInt64().getValue());
                }
            }
        }

        @Override
        public void commandFailed(CommandFailedEvent event) {
            aggregates.remove(event.getRequestId());
        }
    }
}
