package dev.materializer.spring.endpoint;

import dev.materializer.core.CatchUpProgress;

/**
 * How far the catch-ups are, as the {@link MaterializerDescriptor} shows them: they take turns, a few
 * partitions at a time.
 */
public final class CatchUpDescriptor {

    private final CatchUpProgress progress;

    CatchUpDescriptor(CatchUpProgress progress) {
        this.progress = progress;
    }

    /** @return catch-ups of partitions asked for since this instance started */
    public long getTotal() {
        return this.progress.total();
    }

    /** @return catch-ups ended */
    public long getDone() {
        return this.progress.done();
    }

    /** @return catch-ups queued or running now */
    public int getRunning() {
        return this.progress.running();
    }

    /** @return catch-ups waiting for their turn */
    public int getWaiting() {
        return this.progress.waiting();
    }
}
