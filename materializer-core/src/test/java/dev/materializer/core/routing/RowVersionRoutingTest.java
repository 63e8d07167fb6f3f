package dev.materializer.core.routing;

import java.util.Map;
import java.util.Set;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

import static dev.materializer.core.routing.Changes.delete;
import static dev.materializer.core.routing.Changes.doc;
import static dev.materializer.core.routing.Changes.insert;
import static dev.materializer.core.routing.Changes.update;
import static dev.materializer.core.routing.Changes.updated;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Events of the row versions a view writes to a target another view reads reach only their own
 * partition, and the engine's deletes (sweeps, undone attempts) and reopenings reach none — where a
 * source event that does not name its partition would reach every one.
 */
class RowVersionRoutingTest {

    private static final String OPEN = "{$numberLong: '9223372036854775807'}";

    private static final BsonDocument STORED_ID = doc("{partition: 'acme', generation: {$oid: '65e1a0000000000000000001'},"
            + " id: 'apple'}");

    private final PartitionRouter router = new PartitionRouter(Changes.PARTITION_FIELD, Map.of());

    private static BsonDocument version(String to) {
        return doc("{_id: " + STORED_ID.toJson() + ", _part: 'acme', _viewRow: 'apple', _viewFrom: {$numberLong: '3'},"
                + " _viewTo: " + to + ", revenue: 5}");
    }

    @Test
    void anAddedVersionReachesItsPartition() {
        assertThat(router.route("revenue", insert(version(OPEN)))).isEqualTo(AffectedPartitions.of(Set.of("acme")));
    }

    @Test
    void aClosedVersionReachesItsPartitionWithOrWithoutItsDocument() {
        assertThat(router.route("revenue", update(version("{$numberLong: '4'}"), null, STORED_ID, updated("_viewTo"))))
            .isEqualTo(AffectedPartitions.of(Set.of("acme")));
        assertThat(router.route("revenue", update(null, null, STORED_ID, updated("_viewTo"))))
            .as("the version was swept since").isEqualTo(AffectedPartitions.of(Set.of("acme")));
    }

    @Test
    void aReopenedVersionReachesNoPartition() {
        assertThat(router.route("revenue", update(version(OPEN), null, STORED_ID, updated("_viewTo"))))
            .isEqualTo(AffectedPartitions.NONE);
    }

    @Test
    void theEnginesDeletesReachNoPartitionEvenWithoutAPreImage() {
        assertThat(router.route("revenue", delete(null, STORED_ID))).isEqualTo(AffectedPartitions.NONE);
        assertThat(router.route("revenue", delete(version("{$numberLong: '4'}"), STORED_ID)))
            .isEqualTo(AffectedPartitions.NONE);
    }

    @Test
    void aSourceDeleteWithoutAPreImageStillReachesEveryPartition() {
        BsonValue sourceId = doc("{k: {partition: 'acme', id: 1}}").get("k");

        assertThat(router.route("orders", delete(null, sourceId))).isEqualTo(AffectedPartitions.ALL);
        assertThat(router.route("orders", delete(null, new org.bson.BsonString("o-1")))).isEqualTo(AffectedPartitions.ALL);
    }

    @Test
    void aSourceDocumentIsRoutedAsBefore() {
        assertThat(router.route("orders", insert(Changes.inPartition("globex"))))
            .isEqualTo(AffectedPartitions.of(Set.of("globex")));
    }
}
