package dev.materializer.core;

import java.util.Set;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import dev.materializer.core.freshness.FreshnessProbe;
import dev.materializer.core.freshness.FreshnessWaits;
import dev.materializer.core.graph.Lineage;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.pass.PassScheduler.PassProgress;
import dev.materializer.core.view.CoveredTimes;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.write.StatusStore;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a wait for freshness reads of this engine: the registry, the streams, the scheduler and the
 * ownership, all from memory; and, for a wait on an instance that does not own the partition, the
 * times the owner recorded in the view's status. Called on the waiting caller's thread; every part it reads is
 * thread-safe on its own.
 */
final class EngineFreshness implements FreshnessProbe, FreshnessWaits.OwnerRecords {

    private static final Logger log = LoggerFactory.getLogger(EngineFreshness.class);

    private final ViewRegistry registry;

    private final SourceFeed feed;

    private final PassScheduler scheduler;

    private final Predicate<String> owns;

    private final StatusStore status;

    EngineFreshness(ViewRegistry registry, SourceFeed feed, PassScheduler scheduler, Predicate<String> owns,
            StatusStore status) {
        this.status = status;
        this.registry = registry;
        this.feed = feed;
        this.scheduler = scheduler;
        this.owns = owns;
    }

    @Override
    public boolean owns(String partition) {
        return owns.test(partition);
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
        if (view == null || registry.state(view.key()) != RunState.OK) {
            return false;
        }
        // Its rows are built on those of the views it reads: they must be ok too.
        return Lineage.of(view, registry.views(partition)).upstream().stream()
            .allMatch(upstream -> registry.state(upstream.key()) == RunState.OK);
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
