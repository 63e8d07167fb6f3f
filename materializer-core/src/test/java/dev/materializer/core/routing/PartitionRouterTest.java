package dev.materializer.core.routing;

import static dev.materializer.core.routing.Changes.PARTITION_FIELD;
import static dev.materializer.core.routing.Changes.delete;
import static dev.materializer.core.routing.Changes.doc;
import static dev.materializer.core.routing.Changes.id;
import static dev.materializer.core.routing.Changes.inPartition;
import static dev.materializer.core.routing.Changes.insert;
import static dev.materializer.core.routing.Changes.removed;
import static dev.materializer.core.routing.Changes.replace;
import static dev.materializer.core.routing.Changes.storageId;
import static dev.materializer.core.routing.Changes.truncated;
import static dev.materializer.core.routing.Changes.update;
import static dev.materializer.core.routing.Changes.updated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.materializer.core.PartitionMapping;
import java.util.Map;
import java.util.Set;

import org.bson.BsonInt32;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.materializer.core.routing.SourceChange.Operation;

class PartitionRouterTest {

    private static final String PLAIN = "orders";

    private static final String STORAGE = "files";

    /** Storage partitions are "s-<tenant>"; "unknown" maps to null, "broken" throws, "blank" gives "". */
    private static final PartitionMapping TENANT_OF_STORAGE = storagePartition -> {
        switch (storagePartition) {
            case "unknown":
                return null;
            case "broken":
                throw new IllegalStateException("no such storage partition");
            case "blank":
                return "";
            default:
                return storagePartition.substring(2);
        }
    };

    private final PartitionRouter router = new PartitionRouter(PARTITION_FIELD,
        Map.of(STORAGE, TENANT_OF_STORAGE, "raw", PartitionMapping.IDENTITY));

    private static AffectedPartitions only(String... partitions) {
        return AffectedPartitions.of(Set.of(partitions));
    }

    @Nested
    class Insert {

        @Test
        void anInsertReachesThePartitionOfItsDocument() {
            assertThat(router.route(PLAIN, insert(inPartition("a")))).isEqualTo(only("a"));
        }

        @Test
        void anInsertWithoutAPartitionReachesNoPartition() {
            assertThat(router.route(PLAIN, insert(doc("{_id: 1, name: 'x'}")))).isEqualTo(AffectedPartitions.NONE);
        }

        @Test
        void aPartitionThatIsNotAStringIsNoPartition() {
            assertThat(router.route(PLAIN, insert(doc("{_id: 1, _part: 7}")))).isEqualTo(AffectedPartitions.NONE);
            assertThat(router.route(PLAIN, insert(doc("{_id: 1, _part: {name: 'a'}}")))).isEqualTo(AffectedPartitions.NONE);
        }

        @Test
        void anArrayOfPartitionsReachesEachOfThemAsTheScopeMatchesEach() {
            assertThat(router.route(PLAIN, insert(doc("{_id: 1, _part: ['a', 'b', 7, '']}"))))
                .isEqualTo(AffectedPartitions.of(java.util.Set.of("a", "b")));
            assertThat(router.route(PLAIN, insert(doc("{_id: 1, _part: []}")))).isEqualTo(AffectedPartitions.NONE);
        }

        @Test
        void anEmptyPartitionIsNoPartition() {
            assertThat(router.route(PLAIN, insert(doc("{_id: 1, _part: ''}")))).isEqualTo(AffectedPartitions.NONE);
        }

        @Test
        void anInsertWithoutItsDocumentReachesEveryPartition() {
            assertThat(router.route(PLAIN, insert(null))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void theRouterReadsItsOwnPartitionField() {
            PartitionRouter byTenant = new PartitionRouter("tenant", Map.of());

            assertThat(byTenant.route(PLAIN, insert(doc("{_id: 1, tenant: 't', _part: 'a'}")))).isEqualTo(only("t"));
        }
    }

    @Nested
    class UpdateAndReplace {

        @Test
        void anUpdateThatLeavesThePartitionFieldReachesThePartitionOfItsDocument() {
            assertThat(router.route(PLAIN, update(inPartition("a"), null, id("x"), updated("price"))))
                .isEqualTo(only("a"));
        }

        @Test
        void anUpdateOfADocumentWithoutAPartitionThatLeavesThePartitionFieldReachesNoPartition() {
            assertThat(router.route(PLAIN, update(doc("{_id: 'x'}"), null, id("x"), updated("price"))))
                .isEqualTo(AffectedPartitions.NONE);
        }

        @Test
        void anUpdateWithAPreImageReachesTheOldAndTheNewPartition() {
            assertThat(router.route(PLAIN, update(inPartition("b"), inPartition("a"), id("x"), updated(PARTITION_FIELD))))
                .isEqualTo(only("a", "b"));
        }

        @Test
        void anUpdateWithAPreImageInTheSamePartitionReachesOnlyIt() {
            assertThat(router.route(PLAIN, update(inPartition("a"), inPartition("a"), id("x"), null)))
                .isEqualTo(only("a"));
        }

        @Test
        void anUpdateWithAPreImageNeedsNoUpdateDescription() {
            assertThat(router.route(PLAIN, update(inPartition("b"), inPartition("a"), id("x"), null)))
                .isEqualTo(only("a", "b"));
        }

        @Test
        void anUpdateThatTookTheDocumentOutOfEveryPartitionReachesTheOldOne() {
            assertThat(router.route(PLAIN, update(doc("{_id: 'x'}"), inPartition("a"), id("x"), removed(PARTITION_FIELD))))
                .isEqualTo(only("a"));
        }

        @Test
        void aReplaceWithAPreImageReachesTheOldAndTheNewPartition() {
            assertThat(router.route(PLAIN, replace(inPartition("b"), inPartition("a"), id("x"))))
                .isEqualTo(only("a", "b"));
        }

        @Test
        void anUpdateOfThePartitionFieldWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, update(inPartition("b"), null, id("x"), updated(PARTITION_FIELD))))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void anUpdateUnderThePartitionFieldWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, update(inPartition("b"), null, id("x"), updated(PARTITION_FIELD + ".name"))))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aFieldThatOnlyStartsLikeThePartitionFieldDoesNotMoveTheDocument() {
            assertThat(router.route(PLAIN, update(inPartition("b"), null, id("x"), updated(PARTITION_FIELD + "s"))))
                .isEqualTo(only("b"));
        }

        @Test
        void aRemovalOfThePartitionFieldWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, update(doc("{_id: 'x'}"), null, id("x"), removed(PARTITION_FIELD))))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aTruncationOfThePartitionFieldWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, update(doc("{_id: 'x', _part: []}"), null, id("x"), truncated(PARTITION_FIELD))))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void anUpdateWithoutAnUpdateDescriptionOrAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, update(inPartition("a"), null, id("x"), null)))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aReplaceWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, replace(inPartition("a"), null, id("x"))))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void anUpdateWhoseDocumentIsGoneAndWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, update(null, null, id("x"), updated("price"))))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aReplaceWhoseDocumentIsGoneAndWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, replace(null, null, id("x")))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void anUpdateWhoseDocumentIsGoneReachesThePartitionOfItsPreImage() {
            assertThat(router.route(PLAIN, update(null, inPartition("a"), id("x"), updated("price"))))
                .isEqualTo(only("a"));
        }
    }

    @Nested
    class StorageSources {

        @Test
        void aMovingUpdateOfAStorageSourceReachesThePartitionOfItsIdAndOfItsDocument() {
            assertThat(router.route(STORAGE, update(inPartition("b"), null, storageId("s-a", "1"), updated(PARTITION_FIELD))))
                .isEqualTo(only("a", "b"));
        }

        @Test
        void aReplaceOfAStorageSourceReachesThePartitionOfItsIdAndOfItsDocument() {
            assertThat(router.route(STORAGE, replace(inPartition("b"), null, storageId("s-a", "1"))))
                .isEqualTo(only("a", "b"));
        }

        @Test
        void aReplaceOfAStorageSourceWithinOnePartitionReachesOnlyIt() {
            assertThat(router.route(STORAGE, replace(inPartition("a"), null, storageId("s-a", "1"))))
                .isEqualTo(only("a"));
        }

        @Test
        void anUpdateWithoutADescriptionOfAStorageSourceReachesThePartitionOfItsIdAndOfItsDocument() {
            assertThat(router.route(STORAGE, update(inPartition("b"), null, storageId("s-a", "1"), null)))
                .isEqualTo(only("a", "b"));
        }

        @Test
        void anUpdateWhoseDocumentIsGoneReachesThePartitionOfItsId() {
            assertThat(router.route(STORAGE, update(null, null, storageId("s-a", "1"), updated("price"))))
                .isEqualTo(only("a"));
        }

        @Test
        void aDeleteWithoutAPreImageReachesThePartitionOfItsId() {
            assertThat(router.route(STORAGE, delete(null, storageId("s-a", "1")))).isEqualTo(only("a"));
        }

        @Test
        void theIdentityMappingKeepsTheStoragePartition() {
            assertThat(router.route("raw", delete(null, storageId("t1", "1")))).isEqualTo(only("t1"));
        }

        @Test
        void theIdOfASourceThatIsNoStorageSourceTellsNothing() {
            assertThat(router.route(PLAIN, delete(null, storageId("s-a", "1")))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void anIdWithoutTheSeparatorTellsNothing() {
            assertThat(router.route(STORAGE, delete(null, id("s-a-1")))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void anIdThatStartsWithTheSeparatorTellsNothing() {
            assertThat(router.route(STORAGE, delete(null, storageId("", "1")))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void anIdThatIsNoStringTellsNothing() {
            assertThat(router.route(STORAGE, delete(null, new BsonInt32(1)))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aMissingIdTellsNothing() {
            assertThat(router.route(STORAGE, delete(null, null))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aMappingThatDoesNotKnowTheStoragePartitionTellsNothing() {
            assertThat(router.route(STORAGE, delete(null, storageId("unknown", "1")))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aMappingThatFailsTellsNothing() {
            assertThat(router.route(STORAGE, delete(null, storageId("broken", "1")))).isEqualTo(AffectedPartitions.ALL);
            assertThat(router.route(STORAGE, replace(inPartition("b"), null, storageId("broken", "1"))))
                .isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void aMappingThatGivesAnEmptyPartitionTellsNothing() {
            assertThat(router.route(STORAGE, delete(null, storageId("blank", "1")))).isEqualTo(AffectedPartitions.ALL);
        }

        @Test
        void thePreImageWinsOverTheId() {
            assertThat(router.route(STORAGE, delete(inPartition("c"), storageId("s-a", "1")))).isEqualTo(only("c"));
        }
    }

    @Nested
    class Delete {

        @Test
        void aDeleteWithAPreImageReachesItsPartition() {
            assertThat(router.route(PLAIN, delete(inPartition("a"), id("x")))).isEqualTo(only("a"));
        }

        @Test
        void aDeleteOfADocumentWithoutAPartitionReachesNoPartition() {
            assertThat(router.route(PLAIN, delete(doc("{_id: 'x'}"), id("x")))).isEqualTo(AffectedPartitions.NONE);
        }

        @Test
        void aDeleteWithoutAPreImageReachesEveryPartition() {
            assertThat(router.route(PLAIN, delete(null, id("x")))).isEqualTo(AffectedPartitions.ALL);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Operation.class, names = {"DROP", "RENAME", "DROP_DATABASE", "INVALIDATE", "OTHER"})
    void anEventOfTheCollectionOrTheStreamReachesEveryPartition(Operation operation) {
        assertThat(router.route(STORAGE, Changes.of(operation))).isEqualTo(AffectedPartitions.ALL);
    }

    @Test
    void aBlankPartitionFieldIsRefused() {
        assertThatThrownBy(() -> new PartitionRouter(" ", Map.of()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("partitionField");
    }
}
