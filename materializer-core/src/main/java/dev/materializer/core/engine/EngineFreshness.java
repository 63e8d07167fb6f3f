package dev.materializer.core.engine;

import java.util.Set;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.cluster.OwnedPartitions;
import dev.materializer.core.freshness.FreshnessProbe;
import dev.materializer.core.freshness.FreshnessWaits;
import dev.materializer.core.graph.Lineage;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.pass.PassScheduler.PassProgress;
import dev.materializer.core.view.CoveredTimes;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.write.StatusStore;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a wait for freshness, and the reconciler's judgement of drift, read of this engine: the
 * registry, the streams (the views stream among them), the scheduler, the definition changes being
 * applied and the ownership, all from memory; and, for a wait on an instance that does not own the
 * partition, the times the owner recorded in the view's status. Called on the waiting caller's
 * thread (or a pass thread, for the reconciler); every part it reads is thread-safe on its own.
 */
final class EngineFreshness implements FreshnessProbe, FreshnessWaits.OwnerRecords {

    private static final Logger log = LoggerFactory.getLogger(EngineFreshness.class);

    /** Whether a stream handed over everything committed before a moment (see {@link FreshnessProbe#heard}). */
    @FunctionalInterface
    interface StreamHeard {

        boolean heard(long sinceNanos, @Nullable BsonTimestamp clusterTime);
    }

    private final ViewRegistry registry;

    private final SourceFeed feed;

    private final PassScheduler scheduler;

    private final OwnedPartitions ownership;

    private final StatusStore status;

    private final StreamHeard definitions;

    private final Predicate<String> applyingDefinitions;

    /**
     * Creates the probe over the engine's parts.
     * @param definitions whether the views stream handed over every change committed before a moment
     * @param applyingDefinitions whether a change of a view document of a partition is still being applied
     */
    EngineFreshness(ViewRegistry registry, SourceFeed feed, PassScheduler scheduler, OwnedPartitions ownership,
            StatusStore status, StreamHeard definitions, Predicate<String> applyingDefinitions) {
        this.status = status;
        this.registry = registry;
        this.feed = feed;
        this.scheduler = scheduler;
        this.ownership = ownership;
        this.definitions = definitions;
        this.applyingDefinitions = applyingDefinitions;
    }

    @Override
    public boolean owns(String partition) {
        return ownership.owns(partition);
    }

    @Override
    public long ownershipChanges() {
        return ownership.changes();
    }

    @Override
    public boolean heardDefinitions(long sinceNanos, @Nullable BsonTimestamp clusterTime) {
        return definitions.heard(sinceNanos, clusterTime);
    }

    @Override
    public boolean applyingDefinitions(String partition) {
        return applyingDefinitions.test(partition);
    }

    @Override
    public @Nullable Set<String> dependsOn(String partition, String id) {
        ViewDefinition view = registry.find(partition, id);
        if (view == null) {
            return null;
        }
        return Lineage.of(view, registry.views(partition)).collections();
    }

    @Override
    public boolean heard(String collection, long sinceNanos, @Nullable BsonTimestamp clusterTime) {
        return feed.heard(collection, sinceNanos, clusterTime);
    }

    @Override
    public PassProgress progress(String partition, Set<String> sources) {
        return scheduler.progress(partition, sources);
    }

    @Override
    public boolean ok(String partition, String id) {
        ViewDefinition view = registry.find(partition, id);
        if (view == null || registry.state(view.key()) != ViewState.OK) {
            return false;
        }
        // Its rows are built on those of the views it reads: they must be ok too.
        return Lineage.of(view, registry.views(partition)).upstream().stream()
            .allMatch(upstream -> registry.state(upstream.key()) == ViewState.OK);
    }

    @Override
    public boolean cover(String partition, String id, String collection, BsonTimestamp clusterTime) {
        ViewDefinition view = registry.find(partition, id);
        if (view == null) {
            return false;
        }
        try {
            BsonDocument stored = status.readStored(view);
            BsonTimestamp covered = CoveredTimes.of(stored, collection);
            return ViewStatus.fromBson(stored).state() == ViewState.OK && covered != null
                    && covered.compareTo(clusterTime) >= 0;
        }
        catch (MongoException ex) {
            log.debug("The status of view {} of partition {} was not read for a wait: {}", id, partition, ex.getMessage());
            return false;
        }
    }
}
