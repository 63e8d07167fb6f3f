package dev.materializer.spring.endpoint;

import dev.materializer.core.ReconcileProgress;
import org.jspecify.annotations.Nullable;

import static dev.materializer.spring.endpoint.DescriptorText.text;

/**
 * How far the reconciler is, as the {@link MaterializerDescriptor} shows it: the round running now, or
 * when the next starts.
 */
public final class ReconcileDescriptor {

    private final ReconcileProgress progress;

    ReconcileDescriptor(ReconcileProgress progress) {
        this.progress = progress;
    }

    /** @return the round running now, from 1; 0 before the first (and when the reconciler is off) */
    public long getRound() {
        return this.progress.round();
    }

    /** @return views of this round checked or skipped */
    public int getDone() {
        return this.progress.done();
    }

    /** @return views in this round */
    public int getTotal() {
        return this.progress.total();
    }

    /** @return views of this round skipped because their partition had work pending */
    public int getSkipped() {
        return this.progress.skipped();
    }

    /** @return when the next round starts (ISO-8601), when none runs now */
    public @Nullable String getNextRoundAt() {
        return text(this.progress.nextRoundAt());
    }
}
