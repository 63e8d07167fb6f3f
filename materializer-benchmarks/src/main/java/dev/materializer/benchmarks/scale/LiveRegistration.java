package dev.materializer.benchmarks.scale;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.mongodb.client.MongoCollection;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewKey;
import org.bson.BsonDocument;

/**
 * Registering one view live: with the engine running over V views, one more view document is
 * inserted (a new target in an existing tenant, no status, so it must run), and the cost is
 * measured until the engine's pass of it has finished: wall time (which includes the views
 * stream's polling of the in-process server, up to 50 ms), process CPU, and the engine's threads'
 * CPU less what they spend idle in the same wall time (the streams poll the server all the time). One registration first warms the path up (the JIT, the driver's first use of each
 * command) and is not counted; then the repeats, the median taken.
 */
final class LiveRegistration {

    /**
     * @param engineCpuMillis the engine threads' CPU, less what they spend idle (the streams' polling)
     *     in as much wall time, measured for a second before the registrations
     * @param rawEngineCpuMillis the engine threads' CPU as measured
     */
    record Sample(double wallMillis, double processCpuMillis, double engineCpuMillis, double rawEngineCpuMillis,
            long commands) {
    }

    record Result(int views, int repeats, boolean completed, Sample median, Map<String, Long> lastCommands) {
    }

    private LiveRegistration() {
    }

    static Result measure(EngineRun run, Fleet fleet, int repeats) throws InterruptedException {
        MongoCollection<BsonDocument> views = run.database.getCollection(run.options.viewsCollection(),
                BsonDocument.class);
        List<Sample> samples = new ArrayList<>();
        Map<String, Long> lastCommands = Map.of();
        boolean completed = true;
        try (EngineThreadsCpu engineCpu = new EngineThreadsCpu()) {
            long idleCpuBefore = engineCpu.totalNanos();
            long idleWallBefore = System.nanoTime();
            Meter.sleep(1000);
            double idleRate = (double) (engineCpu.totalNanos() - idleCpuBefore) / (System.nanoTime() - idleWallBefore);
            for (int repeat = -1; repeat < repeats; repeat++) {
                int tenant = 1 + (repeat + 1) % Math.max(1, fleet.tenants - 1);
                String id = repeat < 0 ? "extra-warm-up" : "extra-" + repeat;
                ViewKey key = Fleet.extraKey(tenant, id);
                CompletableFuture<PassReport> pass = run.listener.nextPassOf(key);
                long engineBefore = engineCpu.totalNanos();
                Map<String, Long> commandsBefore = run.commands.snapshot();
                long cpuBefore = Meter.processCpuNanos();
                long wallBefore = System.nanoTime();
                views.insertOne(fleet.extraView(tenant, id));
                try {
                    pass.get(EngineRun.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                }
                catch (TimeoutException | ExecutionException ex) {
                    completed = false;
                    break;
                }
                long wall = System.nanoTime() - wallBefore;
                long cpu = Meter.processCpuNanos() - cpuBefore;
                long engine = engineCpu.totalNanos() - engineBefore;
                lastCommands = CommandCounter.between(commandsBefore, run.commands.snapshot());
                if (repeat >= 0) {
                    samples.add(new Sample(wall / 1e6, cpu / 1e6, (engine - idleRate * wall) / 1e6, engine / 1e6,
                            CommandCounter.total(lastCommands)));
                }
                // What follows the pass (its status echoed by the views stream) is not part of the sample.
                run.drain();
                Meter.sleep(200);
                run.drain();
            }
        }
        Sample median = samples.isEmpty() ? new Sample(Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0)
                : samples.stream().sorted(Comparator.comparingDouble(Sample::engineCpuMillis)).toList()
                    .get(samples.size() / 2);
        return new Result(fleet.views(), samples.size(), completed, median, lastCommands);
    }
}
