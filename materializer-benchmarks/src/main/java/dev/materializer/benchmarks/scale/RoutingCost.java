package dev.materializer.benchmarks.scale;

import dev.materializer.core.engine.EngineDiagnostics;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.stream.StreamListener;

/**
 * CPU per routed event: with the engine running over V views (one source, many tenants), events of
 * ONE tenant are handed to the engine's own source feed (through {@link EngineDiagnostics}) on this
 * thread — route, filter by watched fields, mark with the scheduler, exactly what a stream thread
 * does per event — and this thread's CPU time is divided by the number of events. The clock does
 * not move, so the marks never turn into passes. A warm-up comes first; then events run until the
 * CPU budget is spent or the event cap is reached.
 */
final class RoutingCost {

    record Result(int views, long events, double cpuMicrosPerEvent, double bytesPerEvent, String error) {

        boolean measured() {
            return error.isEmpty();
        }
    }

    private static final int DISTINCT_EVENTS = 1024;

    private static final long MAX_EVENTS = 2_000_000;

    private RoutingCost() {
    }

    static Result measure(EngineRun run, int views, double cpuBudgetSeconds) {
        StreamListener feed;
        try {
            feed = EngineDiagnostics.sourceFeed(run.engine);
        }
        catch (IllegalStateException ex) {
            return new Result(views, 0, Double.NaN, Double.NaN, ex.getMessage());
        }
        SourceChange[] events = Fleet.events(Fleet.tenant(0), run.options.partitionField(), DISTINCT_EVENTS);
        // Warm-up: a tenth of the budget, so the JIT has compiled the path.
        spend(feed, events, (long) (cpuBudgetSeconds * 0.1e9), MAX_EVENTS / 10);
        long allocatedBefore = Meter.threadAllocatedBytes();
        long cpuBefore = Meter.threadCpuNanos();
        long count = spend(feed, events, (long) (cpuBudgetSeconds * 1e9), MAX_EVENTS);
        long cpu = Meter.threadCpuNanos() - cpuBefore;
        long allocated = Meter.threadAllocatedBytes() - allocatedBefore;
        return new Result(views, count, cpu / 1e3 / count, allocatedBefore < 0 ? Double.NaN : (double) allocated / count,
                "");
    }

    /** Hands events over until the CPU budget or the cap is reached; checks the CPU every 64 events. */
    private static long spend(StreamListener feed, SourceChange[] events, long budgetNanos, long cap) {
        long start = Meter.threadCpuNanos();
        long count = 0;
        while (count < cap) {
            for (int index = 0; index < 64; index++) {
                feed.onChange(Fleet.SOURCE, events[(int) (count++ % events.length)]);
            }
            if (Meter.threadCpuNanos() - start >= budgetNanos) {
                break;
            }
        }
        return count;
    }
}
