package dev.materializer.core.freshness;

import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;

import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * The waits of {@code Materializer.awaitFresh} and {@code awaitIdle}: they look at the engine's
 * memory every {@link #LOOK} (cheap: no call to MongoDB) and, on an instance that does not own the
 * partition, read what the owner recorded every {@link #RECORD_READ}, until the answer or the
 * timeout. Run on the caller's thread; the engine does no work for them.
 */
public final class FreshnessWaits {

    /** How often a wait looks at the engine's memory: it bounds the wait's lateness, not its cost. */
    public static final Duration LOOK = Duration.ofMillis(10);

    /** How often a wait on an instance that does not own the partition reads the view's status. */
    public static final Duration RECORD_READ = Duration.ofMillis(100);

    /** What the owner of a partition recorded in a view's status (see {@code CoveredTimes}). */
    public interface OwnerRecords {

        /**
         * Whether the view is ok and its owner applied the collection's changes up to a time.
         * @param partition the partition
         * @param id the text of the view's {@code _id}
         * @param collection the collection
         * @param clusterTime the time
         * @return true when the status says so; false also when it cannot be read
         */
        boolean cover(String partition, String id, String collection, BsonTimestamp clusterTime);
    }

    private final FreshnessProbe probe;

    private final OwnerRecords records;

    /**
     * Creates the waits over what an engine knows of itself and of the owners of partitions.
     * @param probe what the waits read of the engine
     * @param records what they read of the owner's status, when the owner is elsewhere
     */
    public FreshnessWaits(FreshnessProbe probe, OwnerRecords records) {
        this.probe = probe;
        this.records = records;
    }

    /**
     * Waits until a view reflects the changes acknowledged before the call (see {@link FreshnessWait}),
     * or, on an instance that does not own the partition and given the collection and operation time
     * of a write, until the owner's record covers it.
     * @param partition the partition
     * @param id the text of the view's {@code _id}
     * @param collection the collection written, or null
     * @param operationTime the write's operation time, or null
     * @param timeout the longest wait
     * @return true when fresh; false at the timeout
     * @throws InterruptedException when interrupted
     * @throws NoSuchElementException at the timeout, when the engine still knows no such view
     */
    public boolean awaitFresh(String partition, String id, @Nullable String collection,
            @Nullable BsonTimestamp operationTime, Duration timeout) throws InterruptedException {
        long began = System.nanoTime();
        long deadline = began + timeout.toNanos();
        FreshnessWait wait = new FreshnessWait(probe, partition, id, began, operationTime);
        long nextRecordRead = began;
        while (true) {
            Freshness now = wait.look();
            if (now == Freshness.FRESH) {
                return true;
            }
            if (now == Freshness.NOT_OWNED && collection != null && operationTime != null
                    && System.nanoTime() - nextRecordRead >= 0) {
                if (records.cover(partition, id, collection, operationTime)) {
                    return true;
                }
                nextRecordRead = System.nanoTime() + RECORD_READ.toNanos();
            }
            if (!pause(deadline)) {
                if (now == Freshness.UNKNOWN_VIEW) {
                    // Waited for it too: a view installed just before the call is read by the engine meanwhile.
                    throw new NoSuchElementException("this engine knows no view '" + id + "' in partition '" + partition
                            + "' (no such view document, an invalid one, or one not read yet)");
                }
                return false;
            }
        }
    }

    /**
     * Waits until the engine heard everything committed before the call and then applied it.
     * @param heardSince whether every stream has handed on what was committed before a moment ({@link System#nanoTime()})
     * @param caughtUp whether everything heard is applied
     * @param timeout the longest wait
     * @return true when idle; false at the timeout
     * @throws InterruptedException when interrupted
     */
    public static boolean awaitIdle(LongPredicate heardSince, BooleanSupplier caughtUp,
            Duration timeout) throws InterruptedException {
        long began = System.nanoTime();
        long deadline = began + timeout.toNanos();
        boolean heard = false;
        while (true) {
            // Heard first: what the streams hand on after the call is marked before caughtUp looks.
            heard = heard || heardSince.test(began);
            if (heard && caughtUp.getAsBoolean()) {
                return true;
            }
            if (!pause(deadline)) {
                return false;
            }
        }
    }

    /** Sleeps one look, or until the deadline; false when the deadline has passed. */
    private static boolean pause(long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        TimeUnit.NANOSECONDS.sleep(Math.min(left, LOOK.toNanos()));
        return true;
    }
}
