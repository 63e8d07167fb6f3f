package dev.materializer.core.hash;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.materializer.core.PartitionTargetId;
import dev.materializer.core.TargetIdStrategy;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class TargetIdCheckTest {

    private final RowHasher hasher = new RowHasher();

    private final BsonValue rowId = BsonDocument.parse("{sku: 'A-1', day: 3}");

    @Test
    void theDefaultStrategyKeepsPartitionsAndGenerationsApart() {
        assertThatCode(() -> TargetIdCheck.verify(PartitionTargetId.INSTANCE, hasher, rowId, "tenant-1"))
            .doesNotThrowAnyException();
    }

    @Test
    void aStrategyThatIgnoresTheGenerationIsRefused() {
        TargetIdStrategy sameInEveryGeneration = (id, partition, generation) ->
            new BsonDocument("partition", new BsonString(partition)).append("id", id);

        assertThatThrownBy(() -> TargetIdCheck.verify(sameInEveryGeneration, hasher, rowId, "tenant-1"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("gives the same stored _id {\"partition\": \"tenant-1\", \"id\": {\"sku\": \"A-1\", \"day\": 3}}")
            .hasMessageContaining("in generations")
            .hasMessageContaining("it must differ between generations");
    }

    @Test
    void aStrategyThatIgnoresThePartitionIsRefused() {
        TargetIdStrategy sharedByPartitions = (id, partition, generation) ->
            new BsonDocument("generation", new org.bson.BsonObjectId(generation)).append("id", id);

        assertThatThrownBy(() -> TargetIdCheck.verify(sharedByPartitions, hasher, rowId, "tenant-1"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("in partitions 'tenant-1' and 'tenant-1\\u0000other'")
            .hasMessageContaining("it must differ between partitions");
    }

    @Test
    void aStrategyThatCutsThePartitionAtAControlCharacterIsRefused() {
        // Concatenating with a separator looks safe but loses what follows a NUL written by a C library.
        TargetIdStrategy cutAtNul = (id, partition, generation) -> new BsonString(
            partition.split("\u0000", -1)[0] + "/" + generation.toHexString() + "/" + id.asDocument().getString("sku").getValue());

        assertThatThrownBy(() -> TargetIdCheck.verify(cutAtNul, hasher, rowId, "tenant-1"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("it must differ between partitions");
    }

    @Test
    void aStrategyThatGivesNoIdIsRefused() {
        TargetIdStrategy nothing = (id, partition, generation) -> null;

        assertThatThrownBy(() -> TargetIdCheck.verify(nothing, hasher, rowId, "tenant-1"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("gives no stored _id");
    }

    @Test
    void theMessageNamesAStrategyByItsDescription() {
        TargetIdStrategy described = new TargetIdStrategy() {
            @Override
            public BsonValue targetId(BsonValue id, String partition, org.bson.types.ObjectId generation) {
                return id;
            }

            @Override
            public String toString() {
                return "RowIdOnly";
            }
        };

        assertThatThrownBy(() -> TargetIdCheck.verify(described, hasher, rowId, "tenant-1"))
            .hasMessageStartingWith("the targetId strategy RowIdOnly gives the same stored _id");
    }
}
