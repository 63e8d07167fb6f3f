package dev.materializer.spring.metrics;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerListener;
import org.jspecify.annotations.Nullable;

/**
 * The value of the {@code materializer.lag} gauge: the age of the oldest change this instance heard
 * that is not yet applied by a pass, in seconds; 0 when the engine is {@linkplain Materializer#caughtUp()
 * caught up}. A change's age counts from the time MongoDB wrote it (the event's wall time, as the
 * engine corrects it for the host's clock skew), not from when the stream delivered it, so a stream
 * that falls behind shows too.
 *
 * <p>How it is kept: the first change heard after the engine was last seen caught up opens a span
 * of pending work, and the span closes when the engine is next seen caught up (at a scrape, or at
 * the next change, at most every {@link #CHECK_INTERVAL}). The gauge is the age of the oldest change
 * of the open span. The engine says only whether everything is applied, not which change is, so
 * this is an upper bound of the true age: while some partition always has work pending (a write
 * rate high enough that the engine is never idle between two checks), the span stays open and the
 * gauge keeps growing, though each change may be applied within its debounce. Work the engine has
 * that no change caused (a catch-up at a start, a retry after MongoDB was unreachable) does not open
 * a span: it reads 0 unless a change is pending too.
 *
 * <p>Thread-safe: the stream threads report changes, the scrape reads the gauge; the state is
 * guarded by {@code this}, and the engine is asked outside the lock.
 */
public final class MaterializerLag implements MaterializerListener {

    /** The least time between two checks of the engine on the path of a change event. */
    static final Duration CHECK_INTERVAL = Duration.ofMillis(50);

    /**
     * How long ago the last change must have been heard for a scrape that sees the engine caught up
     * to close the span: a change is heard a little before the engine marks its partition.
     */
    static final Duration SETTLED = Duration.ofSeconds(1);

    private final Supplier<@Nullable Materializer> engine;

    private final LongSupplier ticker;

    /** Whether a span of pending work is open. */
    private boolean open;

    /** When, on the ticker, the oldest change of the open span was written. */
    private long oldest;

    /** When, on the ticker, the last change was heard. */
    private long lastHeard;

    /** When, on the ticker, a change event last asked the engine. */
    private long lastCheck;

    /** @param engine the engine whose work applies the changes; null until it exists */
    public MaterializerLag(Supplier<@Nullable Materializer> engine) {
        this(engine, System::nanoTime);
    }

    /**
     * @param engine the engine whose work applies the changes; null until it exists
     * @param ticker a monotonic clock, in nanoseconds
     */
    MaterializerLag(Supplier<@Nullable Materializer> engine, LongSupplier ticker) {
        this.engine = engine;
        this.ticker = ticker;
    }

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        long now = this.ticker.getAsLong();
        boolean check;
        synchronized (this) {
            check = this.open && now - this.lastCheck >= CHECK_INTERVAL.toNanos();
            if (check) {
                this.lastCheck = now;
            }
        }
        // Asked before this change is marked (the engine marks it after telling its listeners):
        // caught up means every change before this one is applied.
        boolean caughtUp = check && caughtUp(this.engine.get());
        long writtenAt = now - ((lag != null) ? lag.toNanos() : 0);
        synchronized (this) {
            if (caughtUp || !this.open) {
                this.open = true;
                this.oldest = writtenAt;
            }
            else if (writtenAt - this.oldest < 0) {
                this.oldest = writtenAt;
            }
            this.lastHeard = now;
        }
    }

    /**
     * The gauge's value now.
     * @param materializer the engine
     * @return the age of the oldest change heard and not yet applied, in seconds; 0 when caught up
     */
    public double seconds(Materializer materializer) {
        boolean caughtUp = caughtUp(materializer);
        long now = this.ticker.getAsLong();
        synchronized (this) {
            if (!this.open) {
                return 0;
            }
            if (caughtUp) {
                if (now - this.lastHeard >= SETTLED.toNanos()) {
                    this.open = false;
                }
                return 0;
            }
            return Math.max(0, now - this.oldest) / 1e9;
        }
    }

    private static boolean caughtUp(@Nullable Materializer materializer) {
        if (materializer == null) {
            return false;
        }
        try {
            return materializer.caughtUp();
        }
        catch (RuntimeException ex) {
            // An engine that cannot say: the span stays open, which overstates rather than hides.
            return false;
        }
    }
}
