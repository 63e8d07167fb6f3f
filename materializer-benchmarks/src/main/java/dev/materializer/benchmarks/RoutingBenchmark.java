package dev.materializer.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import dev.materializer.core.routing.AffectedPartitions;
import dev.materializer.core.PartitionMapping;
import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import dev.materializer.core.routing.WatchedFields;

/**
 * Events routed per second: the router and the field filter on the events a shared stream carries
 * most (inserts, updates of a field, deletes), each event checked against three views' fields as
 * the engine does for the views of the routed partition.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RoutingBenchmark {

    private static final String ORDERS = "orders";

    private static final String FILES = "files";

    private final PartitionRouter router = new PartitionRouter("_part", Map.of(FILES, PartitionMapping.IDENTITY));

    private final WatchedFields[] views = {
        WatchedFields.of(List.of("status", "customer.name", "lines.price", "lines.qty"), "_part"),
        WatchedFields.of(List.of("total"), "_part"),
        WatchedFields.of(List.of(), "_part"),
    };

    private final BsonDocument order = BsonDocument.parse("{_id: {$oid: '65f0c0ffee0000000000abcd'}, _part: 'tenant-17',"
        + " status: 'open', customer: {name: 'Ada', city: 'Paris'}, lines: [{sku: 'A', qty: 2, price: 9.9}], total: 19.8}");

    private final SourceChange insert = new SourceChange(Operation.INSERT, order, null, order.get("_id"), null, null, null);

    /** An update of {@code lines.0.qty} (updateLookup gives the post-image), no pre-image. */
    private final SourceChange update = new SourceChange(Operation.UPDATE, order, null, order.get("_id"),
        new UpdatedFields(List.of("lines.0.qty", "updatedAt"), List.of(), List.of()), null, null);

    /** An update of an unwatched field of the first two views. */
    private final SourceChange untouchedUpdate = new SourceChange(Operation.UPDATE, order, null, order.get("_id"),
        new UpdatedFields(List.of("notes"), List.of(), List.of()), null, null);

    /** A delete without pre-image in a storage source: the id names the partition. */
    private final SourceChange storageDelete = new SourceChange(Operation.DELETE, null, null,
        new BsonString("tenant-17\u001Finvoice-2024-0001.pdf"), null, null, null);

    /** A delete with a pre-image. */
    private final SourceChange delete = new SourceChange(Operation.DELETE, null, order, order.get("_id"), null, null, null);

    /** Routing of an insert. */
    @Benchmark
    public AffectedPartitions routeInsert() {
        return router.route(ORDERS, insert);
    }

    /** Routing of an update of a field other than the partition field. */
    @Benchmark
    public AffectedPartitions routeUpdate() {
        return router.route(ORDERS, update);
    }

    /** Routing of a delete with a pre-image. */
    @Benchmark
    public AffectedPartitions routeDelete() {
        return router.route(ORDERS, delete);
    }

    /** Routing of a delete of a storage source by its id. */
    @Benchmark
    public AffectedPartitions routeStorageDelete() {
        return router.route(FILES, storageDelete);
    }

    /** The field filter of three views on an update that touches the first. */
    @Benchmark
    public void watchedFieldsUpdate(Blackhole blackhole) {
        for (WatchedFields view : views) {
            blackhole.consume(view.mayBeTouchedBy(update));
        }
    }

    /** The field filter of three views on an update that touches only the view of every field. */
    @Benchmark
    public void watchedFieldsUntouchedUpdate(Blackhole blackhole) {
        for (WatchedFields view : views) {
            blackhole.consume(view.mayBeTouchedBy(untouchedUpdate));
        }
    }

    /** A typical event whole: route the update, then filter it for three views. */
    @Benchmark
    public void routeAndFilterUpdate(Blackhole blackhole) {
        AffectedPartitions partitions = router.route(ORDERS, update);
        blackhole.consume(partitions);
        if (partitions.includes("tenant-17")) {
            for (WatchedFields view : views) {
                blackhole.consume(view.mayBeTouchedBy(update));
            }
        }
    }
}
