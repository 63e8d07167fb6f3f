package dev.materializer.core;

import java.util.Set;
import java.util.function.Predicate;

import dev.materializer.core.freshness.FreshnessProbe;
import dev.materializer.core.graph.Lineage;
import dev.materializer.core.pass.PassScheduler;
import dev.materializer.core.pass.PassScheduler.PassProgress;
import dev.materializer.core.view.ViewDefinition;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * What a wait for freshness reads of this engine: the registry, the streams, the scheduler and the
 * ownership, all from memory. Called on the waiting caller's thread; every part it reads is
 * thread-safe on its own.
 */
final class EngineFreshness implements FreshnessProbe {

    private final ViewRegistry registry;

    private final SourceFeed feed;

    private final PassScheduler scheduler;

    private final Predicate<String> owns;

    EngineFreshness(ViewRegistry registry, SourceFeed feed, PassScheduler scheduler, Predicate<String> owns) {
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
}
