package dev.materializer.core.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.materializer.core.ReconcileProgress;
import dev.materializer.core.EngineClock;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-runs every view this instance owns once per {@code interval}, one at a time and at most
 * {@code maxPerSecond}, so the cost is spread over the round and bounded. A view whose partition
 * has work pending is skipped this round: its own pass comes anyway, and a reconcile run beside it
 * would take pending work for drift.
 *
 * <p>What it guarantees: every owned view that stays quiet is compared with a fresh run of its
 * pipeline at least once per round, so a view that drifted for any reason (a lost mark, a write
 * by hand, a bug) converges within {@code interval} plus the length of a round. It only queues
 * work; the check and the heal run in the partition's lane.
 *
 * <p>Threads: timers fire on the clock's thread and only queue work; a run's completion may come
 * on a pass thread. All state is guarded by {@code this}; no MongoDB call is made under it.
 */
public final class Reconciler implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

    /** What the reconciler works on. */
    public interface Views {

        /**
         * The views this instance owns now, in a stable order.
         * @return the views
         */
        List<ViewKey> owned();

        /**
         * Whether a partition has work pending (marks not yet applied).
         * @param partition the partition
         * @return true when pending
         */
        boolean busy(String partition);

        /**
         * Checks one view and heals it when it drifted, in its partition's lane.
         * @param view the view
         * @return done when the run ended, however it ended
         */
        CompletableFuture<?> reconcile(ViewKey view);
    }

    private final EngineClock clock;

    private final Duration interval;

    private final Duration spacing;

    private final Views views;

    private final Deque<ViewKey> queue = new ArrayDeque<>();

    private long round;

    private int total;

    private int done;

    private int skipped;

    private @Nullable Instant roundStarted;

    private @Nullable Instant nextRoundAt;

    private EngineClock.@Nullable Timer timer;

    private boolean closed;

    /**
     * Creates a reconciler; nothing runs before {@link #start()}.
     * @param clock the clock of its timers
     * @param interval how often a round starts; zero turns it off
     * @param maxPerSecond the most views checked per second
     * @param views what it works on
     */
    public Reconciler(EngineClock clock, Duration interval, double maxPerSecond, Views views) {
        this.clock = clock;
        this.interval = interval;
        this.spacing = Duration.ofNanos((long) (1_000_000_000L / maxPerSecond));
        this.views = views;
    }

    /** Arms the first round, one interval from now (a start catches up on its own). */
    public synchronized void start() {
        if (interval.isZero() || closed || timer != null) {
            return;
        }
        nextRoundAt = clock.now().plus(interval);
        timer = clock.schedule(interval, this::beginRound);
    }

    private void beginRound() {
        List<ViewKey> owned = views.owned();
        synchronized (this) {
            if (closed) {
                return;
            }
            round++;
            queue.clear();
            queue.addAll(owned);
            total = owned.size();
            done = 0;
            skipped = 0;
            roundStarted = clock.now();
            nextRoundAt = null;
            log.debug("Reconcile round {}: {} view(s)", round, total);
        }
        next();
    }

    /** Checks the next view of the round, or arms the next round when this one is through. */
    private void next() {
        ViewKey view;
        synchronized (this) {
            timer = null;
            if (closed) {
                return;
            }
            view = queue.poll();
            if (view == null) {
                Instant due = roundStarted == null ? clock.now().plus(interval) : roundStarted.plus(interval);
                Duration wait = Duration.between(clock.now(), due);
                nextRoundAt = due;
                timer = clock.schedule(wait.isNegative() ? Duration.ZERO : wait, this::beginRound);
                return;
            }
            done++;
        }
        if (views.busy(view.partition())) {
            synchronized (this) {
                skipped++;
            }
            schedule();
            return;
        }
        CompletableFuture<?> run;
        try {
            run = views.reconcile(view);
        }
        catch (RuntimeException ex) {
            log.warn("The reconcile run of view {} could not be queued: {}", view, ex.toString());
            run = CompletableFuture.completedFuture(null);
        }
        // One run at a time: the next waits for this one, then for the spacing.
        run.whenComplete((result, failure) -> schedule());
    }

    private synchronized void schedule() {
        if (!closed) {
            timer = clock.schedule(spacing, this::next);
        }
    }

    /** How far the reconciler is now. */
    public synchronized ReconcileProgress progress() {
        return new ReconcileProgress(round, done, total, skipped, nextRoundAt);
    }

    /** Stops: no run starts any more. */
    @Override
    public synchronized void close() {
        closed = true;
        queue.clear();
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
