package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the materializer under {@code materializer.*}. The defaults equal those of
 * {@link dev.materializer.core.MaterializerOptions}; the values are checked when the engine is
 * created, and a bad one fails the start with the name of its key and what is allowed.
 *
 * <p>Not thread-safe: bound once at start, read by the auto-configuration.
 */
@ConfigurationProperties(MaterializerProperties.PREFIX)
public class MaterializerProperties {

    /** The prefix of every key. */
    public static final String PREFIX = "materializer";

    /** The switch of the whole starter: with it {@code false}, no bean of the starter is created. */
    public static final String ENABLED = PREFIX + ".enabled";

    /** The value of a storage source whose storage partition is the partition of the views. */
    public static final String IDENTITY_MAPPING = "identity";

    /** Whether to run the materializer. */
    private boolean enabled = true;

    /**
     * Whether to start the materializer with the application context. When false, the engine is
     * created but does not run until the application calls start() on the MaterializerLifecycle
     * bean (a Lifecycle), or ConfigurableApplicationContext.start().
     */
    private boolean autoStartup = true;

    /**
     * Database of the views, their sources and targets. Defaults to the database of the
     * application's MongoDB connection (spring.mongodb.database or the database of
     * spring.mongodb.uri).
     */
    private @Nullable String database;

    /**
     * Name of the MongoClient bean the materializer uses. Unset, it uses the application's only
     * MongoClient, or the @Primary one among several; with several and none @Primary, the
     * materializer backs off (no engine, endpoint, meters or health) and the condition report
     * (--debug) names this key. When the named client is not the one Spring Boot builds from
     * spring.mongodb.*, set materializer.database too.
     */
    private @Nullable String clientBean;

    /**
     * Name of this application instance in leases. Defaults to host name, process id and a random
     * suffix.
     */
    private @Nullable String instanceId;

    /** Collection of the view documents. */
    private String viewsCollection = "_aggregations";

    /** Field that names the partition (tenant) in view documents, sources and target rows. */
    private String partitionField = "_part";

    /** Field of a view document that holds its status. */
    private String statusField = "_materializerStatus";

    /** Collection where the engine keeps its streams' resume tokens and the instances' heartbeats. */
    private String checkpointsCollection = "_materializerCheckpoints";

    /** How long a partition stays quiet after a change before its pass runs. */
    private Duration debounce = Duration.ofMillis(100);

    /** Wait before a change stream that ended opens again; later retries back off up to max-backoff. */
    private Duration rewatch = Duration.ofSeconds(1);

    /** Longest wait between retries of a failing change stream or of a failed start. */
    private Duration maxBackoff = Duration.ofSeconds(30);

    /** Longest time a view's pipeline may run. */
    private Duration maxTime = Duration.ofSeconds(30);

    /** Most rows a view's result may have; a larger result makes the view errored. */
    private int maxRows = 100_000;

    /**
     * Most changed rows a pass writes in one transaction with its flip, on a deployment with
     * transactions; a larger diff is written in groups under a lease. Zero always writes in groups.
     */
    private int maxTransactionRows = 1_000;

    /** How long the previous generation of a view stays readable after a newer one replaces it. */
    private Duration generationGrace = Duration.ofSeconds(60);

    /** How long the lease of a pass that writes in groups lasts without renewal. */
    private Duration passLease = Duration.ofSeconds(60);

    /**
     * How long an instance counts as live without a heartbeat; partitions of an instance silent this
     * long move to the others.
     */
    private Duration partitionLease = Duration.ofSeconds(30);

    /** How many partitions may run passes at once in this instance. */
    private int maxConcurrentPasses = 4;

    /**
     * How many partitions one pass may run together: the waiting key-scoped passes of views that
     * share a definition and a target run as one batch (one aggregate, one bulk write of rows, one bulk
     * of flips, each flip still that view's own). 1 runs every partition alone.
     */
    private int passBatchSize = 50;

    /**
     * Whether the engine turns on change stream pre-images (collMod changeStreamPreAndPostImages,
     * MongoDB 6.0+) on the sources of key-scoped views that need a document's key before a change,
     * so a key that moves and a delete recompute only their keys instead of the whole view. Changes
     * your collections and stores a pre-image per change until the cluster's expireAfterSeconds.
     */
    private boolean enablePreImages = false;

    /**
     * Longest wait, when the application stops, for the passes already running to finish before the
     * engine closes. Queued work is not run then: it stays pending in the checkpoints and runs after
     * the restart. Keep it below spring.lifecycle.timeout-per-shutdown-phase (30s by default) with
     * room for the close; a value that is not below it is warned about at startup.
     */
    private Duration shutdownTimeout = Duration.ofSeconds(20);

    /**
     * Sources whose document ids start with their storage partition and the separator U+001F, by
     * collection name, with the mapping from that storage partition to the partition of the
     * views: "identity", or the name of a PartitionMapping bean. Use brackets for collection names
     * with dots: materializer.storage-sources[orders.v2]=identity.
     */
    private Map<String, String> storageSources = new LinkedHashMap<>();

    /** Reconciler: every view re-run and compared with its stored rows, to find and heal drift. */
    private final Reconcile reconcile = new Reconcile();

    /** Operator page: the views of each partition as a graph, read from the materializer endpoint. */
    private final Ui ui = new Ui();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isAutoStartup() {
        return this.autoStartup;
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    public @Nullable String getDatabase() {
        return this.database;
    }

    public void setDatabase(@Nullable String database) {
        this.database = database;
    }

    public @Nullable String getClientBean() {
        return this.clientBean;
    }

    public void setClientBean(@Nullable String clientBean) {
        this.clientBean = clientBean;
    }

    public @Nullable String getInstanceId() {
        return this.instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId;
    }

    public String getViewsCollection() {
        return this.viewsCollection;
    }

    public void setViewsCollection(String viewsCollection) {
        this.viewsCollection = viewsCollection;
    }

    public String getPartitionField() {
        return this.partitionField;
    }

    public void setPartitionField(String partitionField) {
        this.partitionField = partitionField;
    }

    public String getStatusField() {
        return this.statusField;
    }

    public void setStatusField(String statusField) {
        this.statusField = statusField;
    }

    public String getCheckpointsCollection() {
        return this.checkpointsCollection;
    }

    public void setCheckpointsCollection(String checkpointsCollection) {
        this.checkpointsCollection = checkpointsCollection;
    }

    public Duration getDebounce() {
        return this.debounce;
    }

    public void setDebounce(Duration debounce) {
        this.debounce = debounce;
    }

    public Duration getRewatch() {
        return this.rewatch;
    }

    public void setRewatch(Duration rewatch) {
        this.rewatch = rewatch;
    }

    public Duration getMaxBackoff() {
        return this.maxBackoff;
    }

    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    public Duration getMaxTime() {
        return this.maxTime;
    }

    public void setMaxTime(Duration maxTime) {
        this.maxTime = maxTime;
    }

    public int getMaxRows() {
        return this.maxRows;
    }

    public void setMaxRows(int maxRows) {
        this.maxRows = maxRows;
    }

    public int getMaxTransactionRows() {
        return this.maxTransactionRows;
    }

    public void setMaxTransactionRows(int maxTransactionRows) {
        this.maxTransactionRows = maxTransactionRows;
    }

    public Duration getGenerationGrace() {
        return this.generationGrace;
    }

    public void setGenerationGrace(Duration generationGrace) {
        this.generationGrace = generationGrace;
    }

    public Duration getPassLease() {
        return this.passLease;
    }

    public void setPassLease(Duration passLease) {
        this.passLease = passLease;
    }

    public Duration getPartitionLease() {
        return this.partitionLease;
    }

    public void setPartitionLease(Duration partitionLease) {
        this.partitionLease = partitionLease;
    }

    public int getMaxConcurrentPasses() {
        return this.maxConcurrentPasses;
    }

    public void setMaxConcurrentPasses(int maxConcurrentPasses) {
        this.maxConcurrentPasses = maxConcurrentPasses;
    }

    public int getPassBatchSize() {
        return this.passBatchSize;
    }

    public void setPassBatchSize(int passBatchSize) {
        this.passBatchSize = passBatchSize;
    }

    public boolean isEnablePreImages() {
        return this.enablePreImages;
    }

    public void setEnablePreImages(boolean enablePreImages) {
        this.enablePreImages = enablePreImages;
    }

    public Duration getShutdownTimeout() {
        return this.shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public Map<String, String> getStorageSources() {
        return this.storageSources;
    }

    public void setStorageSources(Map<String, String> storageSources) {
        this.storageSources = storageSources;
    }

    public Reconcile getReconcile() {
        return this.reconcile;
    }

    public Ui getUi() {
        return this.ui;
    }

    /**
     * The operator page under {@code materializer.ui.*}: a read-only page of the actuator, beside
     * the {@code materializer} endpoint whose answer it shows.
     */
    public static class Ui {

        /**
         * Whether to serve the operator page at the actuator endpoint 'materializerui' (expose it
         * with the 'materializer' endpoint): the views of each partition as a graph of their
         * dependencies, errored views first.
         */
        private boolean enabled = false;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * The reconciler under {@code materializer.reconcile.*}: a rolling round over the views this
     * instance owns, each re-run and compared with its stored rows; a view that differs with no
     * work pending has drifted, and is rewritten.
     */
    public static class Reconcile {

        /**
         * How often every view this instance owns is re-run and compared with its stored rows. Zero
         * turns the reconciler off.
         */
        private Duration interval = Duration.ofHours(6);

        /**
         * Most views the reconciler checks per second. Keep the number of views divided by the
         * interval in seconds below it, or a round never ends before the next is due.
         */
        private double maxPerSecond = 2.0;

        public Duration getInterval() {
            return this.interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public double getMaxPerSecond() {
            return this.maxPerSecond;
        }

        public void setMaxPerSecond(double maxPerSecond) {
            this.maxPerSecond = maxPerSecond;
        }
    }
}
