package dev.materializer.benchmarks.scale;

/**
 * Idle heap per view: the heap in use (after full collections) with the engine running idle over V
 * views, minus the heap before it started (the server's copy of the view documents is in the same
 * JVM and is there in both), minus what an engine with no view adds, divided by V.
 */
final class IdleHeap {

    record Result(int views, long engineBytes, long fixedBytes, double bytesPerView) {
    }

    private IdleHeap() {
    }

    /** The heap before the engine starts. */
    static long before() {
        return Meter.heapAfterGc();
    }

    /** The heap with the engine idle, and what it means per view. */
    static Result after(long before, int views, long fixedBytes) {
        long engine = Meter.heapAfterGc() - before;
        double perView = views == 0 ? 0 : (double) (engine - fixedBytes) / views;
        return new Result(views, engine, fixedBytes, perView);
    }
}
