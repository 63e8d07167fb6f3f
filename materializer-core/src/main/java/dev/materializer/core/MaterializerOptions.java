package dev.materializer.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The engine's options: immutable, checked when built. Each check failure is an
 * {@link IllegalArgumentException} whose message names the option and the allowed range.
 *
 * <pre>{@code
 * MaterializerOptions options = MaterializerOptions.builder()
 *     .partitionField("tenant")
 *     .debounce(Duration.ofMillis(200))
 *     .build();
 * }</pre>
 *
 * @param viewsCollection the collection of view documents
 * @param partitionField the field that names the partition, in view documents, sources and rows
 * @param statusField the field of a view document that holds its status
 * @param checkpointsCollection the engine's collection of resume tokens and instance heartbeats
 * @param debounce how long a partition stays quiet before its pass runs
 * @param rewatch how long before a change stream that ended opens again (the first retry; later
 *     retries back off up to {@code maxBackoff})
 * @param maxBackoff the longest wait between retries of a failing stream or of a failed start
 * @param maxTime the longest a view's pipeline may run
 * @param maxRows the most rows a view's result may have
 * @param maxTransactionRows on a deployment with transactions, the most changed rows (versions added
 *     plus versions closed) a pass writes in one transaction together with its flip; a larger diff
 *     goes in groups under a lease. A pass holds at most this many changes (and at least a group of
 *     1000) in memory before it writes. 0 always writes in groups
 * @param generationGrace how long the previous generation stays readable after a flip
 * @param passLease how long the lease of a pass in groups lasts without renewal
 * @param partitionLease how long an instance counts as live without a heartbeat; partitions of an
 *     instance silent this long move to the others
 * @param maxConcurrentPasses how many partitions may run passes at once in this instance
 * @param passBatchSize how many partitions one pass may run together: the waiting key-scoped passes
 *     of views that share a definition and a target run as one batch (one aggregate, one bulk write of
 *     rows, one bulk of flips, each flip still that view's own compare-and-set); 1 runs every
 *     partition alone
 * @param reconcileInterval how often every view this instance owns is re-run and compared with its
 *     stored rows (the reconciler, a safety net that finds and heals drift); zero turns it off
 * @param reconcileMaxPerSecond how many views the reconciler runs per second at most
 * @param enablePreImages whether the engine turns on {@code changeStreamPreAndPostImages} on the
 *     sources whose key-scoped passes need a document's key before a change (group-by keys, keys of a
 *     field, {@code $lookup} foreign collections), so that a key that moves and a delete are
 *     recomputed key by key rather than whole; off by default: it changes the users' collections and
 *     stores a pre-image for each of their changes
 * @param storageSources sources whose ids start with their storage partition, with the mapping to
 *     the partition of the views
 * @param targetId how the stored {@code _id} of a row is built
 * @param instanceId the name of this instance in leases
 * @param clock the clock of the timers
 * @param listener the listener of the engine's events
 */
public record MaterializerOptions(String viewsCollection, String partitionField, String statusField,
        String checkpointsCollection, Duration debounce, Duration rewatch, Duration maxBackoff, Duration maxTime,
        int maxRows, int maxTransactionRows, Duration generationGrace, Duration passLease, Duration partitionLease,
        int maxConcurrentPasses, int passBatchSize, Duration reconcileInterval, double reconcileMaxPerSecond, boolean enablePreImages,
        Map<String, PartitionMapping> storageSources, TargetIdStrategy targetId,
        String instanceId, @Nullable EngineClock clock, MaterializerListener listener) {

    /** Default {@code viewsCollection}. */
    public static final String DEFAULT_VIEWS_COLLECTION = "_aggregations";

    /** Default {@code partitionField}. */
    public static final String DEFAULT_PARTITION_FIELD = "_part";

    /** Default {@code statusField}. */
    public static final String DEFAULT_STATUS_FIELD = "_materializerStatus";

    /** Default {@code checkpointsCollection}. */
    public static final String DEFAULT_CHECKPOINTS_COLLECTION = "_materializerCheckpoints";

    /** Default {@code debounce}. */
    public static final Duration DEFAULT_DEBOUNCE = Duration.ofMillis(100);

    /** Default {@code rewatch}. */
    public static final Duration DEFAULT_REWATCH = Duration.ofSeconds(1);

    /** Default {@code maxBackoff}. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);

    /** Default {@code maxTime}. */
    public static final Duration DEFAULT_MAX_TIME = Duration.ofSeconds(30);

    /** Default {@code maxRows}. */
    public static final int DEFAULT_MAX_ROWS = 100_000;

    /** Default {@code maxTransactionRows}. */
    public static final int DEFAULT_MAX_TRANSACTION_ROWS = 1_000;

    /** Default {@code generationGrace}. */
    public static final Duration DEFAULT_GENERATION_GRACE = Duration.ofSeconds(60);

    /** Default {@code passLease}. */
    public static final Duration DEFAULT_PASS_LEASE = Duration.ofSeconds(60);

    /** Default {@code partitionLease}. */
    public static final Duration DEFAULT_PARTITION_LEASE = Duration.ofSeconds(30);

    /** Default {@code maxConcurrentPasses}. */
    public static final int DEFAULT_MAX_CONCURRENT_PASSES = 4;

    /**
     * Default {@code passBatchSize}: large enough that a burst over thousands of tenants costs tens of
     * batches, small enough that one batch's aggregate (a branch per partition) and its bulk writes
     * stay small.
     */
    public static final int DEFAULT_PASS_BATCH_SIZE = 50;

    /** The largest {@code passBatchSize}. */
    public static final int MAX_PASS_BATCH_SIZE = 500;

    /**
     * Default {@code reconcileInterval}: on, and long. The reconciler is the evidence that views
     * equal their pipelines and the repair when they do not; an in-sync view costs its pipeline and
     * one read of its stored hashes, and writes no row, so a round every six hours is cheap.
     */
    public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofHours(6);

    /** Default {@code reconcileMaxPerSecond}: a trickle beside the passes changes cause. */
    public static final double DEFAULT_RECONCILE_MAX_PER_SECOND = 2.0;

    /**
     * The largest {@code maxRows}: a bound on a view's result that keeps the time of a whole pass and
     * the size of a target sane. A pass's memory does not grow with it: the compare streams.
     */
    public static final int MAX_ROWS_LIMIT = 10_000_000;

    /** Checks every option. */
    public MaterializerOptions {
        requireName("viewsCollection", viewsCollection);
        requireField("partitionField", partitionField);
        requireField("statusField", statusField);
        requireName("checkpointsCollection", checkpointsCollection);
        if (partitionField.equals(statusField)) {
            throw new IllegalArgumentException("partitionField and statusField must differ, both were '" + statusField + "'");
        }
        if (viewsCollection.equals(checkpointsCollection)) {
            throw new IllegalArgumentException(
                    "viewsCollection and checkpointsCollection must differ, both were '" + viewsCollection + "'");
        }
        requireRange("debounce", debounce, Duration.ZERO, Duration.ofHours(1));
        requireRange("rewatch", rewatch, Duration.ofMillis(1), Duration.ofHours(1));
        requireRange("maxBackoff", maxBackoff, rewatch, Duration.ofHours(1));
        requireRange("maxTime", maxTime, Duration.ofMillis(1), Duration.ofHours(24));
        requireRange("maxRows", maxRows, 1, MAX_ROWS_LIMIT);
        // Not bounded by maxRows: a larger value only means every result fits one transaction, and
        // bounding it made a small maxRows fail against the default maxTransactionRows
        requireRange("maxTransactionRows", maxTransactionRows, 0, MAX_ROWS_LIMIT);
        requireRange("generationGrace", generationGrace, Duration.ZERO, Duration.ofDays(1));
        requireRange("passLease", passLease, Duration.ofSeconds(1), Duration.ofHours(24));
        requireRange("partitionLease", partitionLease, Duration.ofSeconds(1), Duration.ofHours(1));
        requireRange("maxConcurrentPasses", maxConcurrentPasses, 1, 256);
        requireRange("passBatchSize", passBatchSize, 1, MAX_PASS_BATCH_SIZE);
        requireRange("reconcileInterval", reconcileInterval, Duration.ZERO, Duration.ofDays(30));
        if (!(reconcileMaxPerSecond >= 0.01 && reconcileMaxPerSecond <= 1000)) {
            throw new IllegalArgumentException("reconcileMaxPerSecond must be between 0.01 and 1000, was "
                    + reconcileMaxPerSecond);
        }
        Objects.requireNonNull(storageSources, "storageSources must not be null");
        storageSources.forEach((source, mapping) -> {
            requireName("storageSources key", source);
            Objects.requireNonNull(mapping, () -> "storageSources mapping of '" + source + "' must not be null");
        });
        storageSources = Map.copyOf(storageSources);
        Objects.requireNonNull(targetId, "targetId must not be null");
        if (instanceId == null || instanceId.isBlank()) {
            throw new IllegalArgumentException("instanceId must be a non-blank text");
        }
        Objects.requireNonNull(listener, "listener must not be null");
    }

    /** A builder with every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static MaterializerOptions defaults() {
        return builder().build();
    }

    /** A builder of these options, to change some. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.viewsCollection = viewsCollection;
        builder.partitionField = partitionField;
        builder.statusField = statusField;
        builder.checkpointsCollection = checkpointsCollection;
        builder.debounce = debounce;
        builder.rewatch = rewatch;
        builder.maxBackoff = maxBackoff;
        builder.maxTime = maxTime;
        builder.maxRows = maxRows;
        builder.maxTransactionRows = maxTransactionRows;
        builder.generationGrace = generationGrace;
        builder.passLease = passLease;
        builder.partitionLease = partitionLease;
        builder.maxConcurrentPasses = maxConcurrentPasses;
        builder.passBatchSize = passBatchSize;
        builder.reconcileInterval = reconcileInterval;
        builder.reconcileMaxPerSecond = reconcileMaxPerSecond;
        builder.enablePreImages = enablePreImages;
        builder.storageSources = new LinkedHashMap<>(storageSources);
        builder.targetId = targetId;
        builder.instanceId = instanceId;
        builder.clock = clock;
        builder.listener = listener;
        return builder;
    }

    private static void requireName(String option, @Nullable String value) {
        if (value == null || value.isBlank() || value.contains("$") || value.indexOf('\0') >= 0
                || value.startsWith("system.")) {
            throw new IllegalArgumentException(option + " must be a collection name (not blank, no '$' or NUL, "
                    + "not starting with 'system.'), was '" + value + "'");
        }
    }

    private static void requireField(String option, @Nullable String value) {
        // Not _id: the engine writes the partition and the status beside the document's own _id
        if (value == null || value.isBlank() || value.equals("_id") || value.startsWith("$") || value.contains(".")
                || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(option + " must be a top-level field name (not blank, not '_id', no '.', "
                    + "not starting with '$'), was '" + value + "'");
        }
    }

    private static void requireRange(String option, @Nullable Duration value, Duration min, Duration max) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    private static void requireRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    /** Builds {@link MaterializerOptions}; unset options keep their defaults. Not thread-safe. */
    public static final class Builder {

        private String viewsCollection = DEFAULT_VIEWS_COLLECTION;

        private String partitionField = DEFAULT_PARTITION_FIELD;

        private String statusField = DEFAULT_STATUS_FIELD;

        private String checkpointsCollection = DEFAULT_CHECKPOINTS_COLLECTION;

        private Duration debounce = DEFAULT_DEBOUNCE;

        private Duration rewatch = DEFAULT_REWATCH;

        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;

        private Duration maxTime = DEFAULT_MAX_TIME;

        private int maxRows = DEFAULT_MAX_ROWS;

        private boolean enablePreImages;

        private int maxTransactionRows = DEFAULT_MAX_TRANSACTION_ROWS;

        private Duration generationGrace = DEFAULT_GENERATION_GRACE;

        private Duration passLease = DEFAULT_PASS_LEASE;

        private Duration partitionLease = DEFAULT_PARTITION_LEASE;

        private int maxConcurrentPasses = DEFAULT_MAX_CONCURRENT_PASSES;

        private int passBatchSize = DEFAULT_PASS_BATCH_SIZE;

        private Duration reconcileInterval = DEFAULT_RECONCILE_INTERVAL;

        private double reconcileMaxPerSecond = DEFAULT_RECONCILE_MAX_PER_SECOND;

        private Map<String, PartitionMapping> storageSources = new LinkedHashMap<>();

        private TargetIdStrategy targetId = PartitionTargetId.INSTANCE;

        private String instanceId = defaultInstanceId();

        private @Nullable EngineClock clock;

        private MaterializerListener listener = MaterializerListener.NONE;

        private Builder() {
        }

        private static String defaultInstanceId() {
            String host;
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            }
            catch (java.io.IOException | RuntimeException ex) {
                host = "host";
            }
            return host + "-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
        }

        /**
         * Sets the collection of view documents.
         * @param value the collection of view documents
         * @return this builder
         */
        public Builder viewsCollection(String value) {
            this.viewsCollection = value;
            return this;
        }

        /**
         * Sets the partition field.
         * @param value the partition field
         * @return this builder
         */
        public Builder partitionField(String value) {
            this.partitionField = value;
            return this;
        }

        /**
         * Sets the status field of view documents.
         * @param value the status field of view documents
         * @return this builder
         */
        public Builder statusField(String value) {
            this.statusField = value;
            return this;
        }

        /**
         * Sets the engine's collection of checkpoints and instance heartbeats.
         * @param value the engine's collection of checkpoints and instance heartbeats
         * @return this builder
         */
        public Builder checkpointsCollection(String value) {
            this.checkpointsCollection = value;
            return this;
        }

        /**
         * Sets the quiet time before a partition's pass.
         * @param value the quiet time before a partition's pass
         * @return this builder
         */
        public Builder debounce(Duration value) {
            this.debounce = value;
            return this;
        }

        /**
         * Sets the wait before an ended stream opens again.
         * @param value the wait before an ended stream opens again
         * @return this builder
         */
        public Builder rewatch(Duration value) {
            this.rewatch = value;
            return this;
        }

        /**
         * Sets the longest wait between retries.
         * @param value the longest wait between retries
         * @return this builder
         */
        public Builder maxBackoff(Duration value) {
            this.maxBackoff = value;
            return this;
        }

        /**
         * Sets the longest a pipeline may run.
         * @param value the longest a pipeline may run
         * @return this builder
         */
        public Builder maxTime(Duration value) {
            this.maxTime = value;
            return this;
        }

        /**
         * Sets the most rows of a result.
         * @param value the most rows of a result
         * @return this builder
         */
        public Builder maxRows(int value) {
            this.maxRows = value;
            return this;
        }

        /**
         * Sets the most rows written in one transaction.
         * @param value the most rows written in one transaction
         * @return this builder
         */
        public Builder maxTransactionRows(int value) {
            this.maxTransactionRows = value;
            return this;
        }

        /**
         * Sets how long the previous generation stays after a flip.
         * @param value how long the previous generation stays after a flip
         * @return this builder
         */
        public Builder generationGrace(Duration value) {
            this.generationGrace = value;
            return this;
        }

        /**
         * Sets the lease of a pass in groups.
         * @param value the lease of a pass in groups
         * @return this builder
         */
        public Builder passLease(Duration value) {
            this.passLease = value;
            return this;
        }

        /**
         * Sets how long an instance counts as live without a heartbeat.
         * @param value how long an instance counts as live without a heartbeat; partitions of an instance
         *     silent this long move to the others
         * @return this builder
         */
        public Builder partitionLease(Duration value) {
            this.partitionLease = value;
            return this;
        }

        /**
         * Sets whether the engine turns on change stream pre-images where key-scoped passes need them.
         * @param value whether the engine turns on change stream pre-images on the sources whose
         *     key-scoped passes need the key a document had before a change
         * @return this builder
         */
        public Builder enablePreImages(boolean value) {
            this.enablePreImages = value;
            return this;
        }

        /**
         * Sets how many partitions run passes at once.
         * @param value how many partitions run passes at once
         * @return this builder
         */
        public Builder maxConcurrentPasses(int value) {
            this.maxConcurrentPasses = value;
            return this;
        }

        /**
         * Sets how many partitions one pass may run together.
         * @param value how many partitions one pass may run together (key-scoped passes of views of one
         *     definition and target); 1 runs every partition alone
         * @return this builder
         */
        public Builder passBatchSize(int value) {
            this.passBatchSize = value;
            return this;
        }

        /**
         * Sets how often every owned view is re-run and compared with its rows.
         * @param value how often every owned view is re-run and compared with its rows; zero turns the
         *     reconciler off
         * @return this builder
         */
        public Builder reconcileInterval(Duration value) {
            this.reconcileInterval = value;
            return this;
        }

        /**
         * Sets how many views the reconciler runs per second at most.
         * @param value how many views the reconciler runs per second at most
         * @return this builder
         */
        public Builder reconcileMaxPerSecond(double value) {
            this.reconcileMaxPerSecond = value;
            return this;
        }

        /**
         * Declares a storage source.
         * @param source the source collection
         * @param mapping from the storage partition in the id to the partition of the views
         * @return this builder
         */
        public Builder storageSource(String source, PartitionMapping mapping) {
            this.storageSources.put(source, mapping);
            return this;
        }

        /**
         * Sets how stored ids are built.
         * @param value how stored ids are built
         * @return this builder
         */
        public Builder targetId(TargetIdStrategy value) {
            this.targetId = value;
            return this;
        }

        /**
         * Sets the name of this instance in leases.
         * @param value the name of this instance in leases
         * @return this builder
         */
        public Builder instanceId(String value) {
            this.instanceId = value;
            return this;
        }

        /**
         * Sets the clock of the timers.
         * @param value the clock of the timers; null for the system clock
         * @return this builder
         */
        public Builder clock(@Nullable EngineClock value) {
            this.clock = value;
            return this;
        }

        /**
         * Sets the listener of the engine's events.
         * @param value the listener of the engine's events
         * @return this builder
         */
        public Builder listener(MaterializerListener value) {
            this.listener = value;
            return this;
        }

        /**
         * Checks and builds the options.
         * @return the options
         * @throws IllegalArgumentException naming the option and the allowed range
         */
        public MaterializerOptions build() {
            return new MaterializerOptions(viewsCollection, partitionField, statusField, checkpointsCollection,
                    debounce, rewatch, maxBackoff, maxTime, maxRows, maxTransactionRows, generationGrace, passLease,
                    partitionLease, maxConcurrentPasses, passBatchSize, reconcileInterval, reconcileMaxPerSecond, enablePreImages,
                    storageSources,
                    targetId, instanceId, clock, listener);
        }
    }
}
