package dev.materializer.core.write;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.WriteModel;

import dev.materializer.core.PartitionTargetId;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.Generation;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every filter of a write to a target names the partition: on a target sharded by the partition
 * field an upsert must name the whole shard key, and a delete then goes to one shard.
 */
class TargetWriteFiltersTest {

    private static final String PARTITION_FIELD = "_part";

    private static final BsonString ACME = new BsonString("acme");

    private final TargetRows rows = new TargetRows(PARTITION_FIELD, PartitionTargetId.INSTANCE, new RowHasher());

    private final ObjectId attempt = new ObjectId();

    @Test
    void anUpsertNamesTheStoredIdAndThePartition() {
        BsonDocument version = rows.version(new ResultRow(new BsonString("apple"),
                new BsonDocument("revenue", new BsonInt32(6)), "h1"), "acme", attempt, 3);

        BsonDocument filter = rows.upsert(version).getFilter().toBsonDocument();

        assertThat(filter).isEqualTo(new BsonDocument("_id", version.get("_id")).append(PARTITION_FIELD, ACME));
        assertThat(rows.upsert(version).getReplaceOptions().isUpsert()).isTrue();
    }

    @Test
    void everyWriteAndRemovalOfTheWritersNamesThePartition() {
        BsonValue storedId = PartitionTargetId.INSTANCE.targetId(new BsonString("apple"), "acme", attempt);

        assertThat(rows.close(storedId, "acme", 3, 4).getFilter().toBsonDocument().get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.byIds(List.of(storedId), "acme").get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.inGeneration("acme", Generation.of(3)).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.addedBetween("acme", 3, 6).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.closedBetween("acme", 3, 6).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.addedBy("acme", 4).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.closedBy("acme", 4).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.versionsBefore("acme", 4).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.supersededBy("acme", 3).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.beforeVersions("acme").get(PARTITION_FIELD)).isEqualTo(ACME);
    }

    @Test
    void aCloseOnlyTouchesAVersionStillOpenOrClosedByANumberThatCanNeverFlipBeforeIt() {
        BsonValue storedId = PartitionTargetId.INSTANCE.targetId(new BsonString("apple"), "acme", attempt);

        assertThat(rows.close(storedId, "acme", 3, 7).getFilter().toBsonDocument().get("$or")).isEqualTo(
                BsonDocument.parse("{a: [{_viewTo: {$numberLong: '9223372036854775807'}},"
                        + " {_viewTo: {$gt: {$numberLong: '3'}, $lt: {$numberLong: '7'}}}]}").get("a"));
    }

    @Test
    void leftoversAreOnlyTheNumbersBetweenTheGenerationAndTheAttempt() {
        assertThat(rows.addedBetween("acme", 3, 7).get(ViewFilter.FROM_FIELD))
            .isEqualTo(BsonDocument.parse("{$gt: {$numberLong: '3'}, $lt: {$numberLong: '7'}}"));
        assertThat(rows.closedBetween("acme", 3, 7).get(ViewFilter.TO_FIELD))
            .isEqualTo(BsonDocument.parse("{$gt: {$numberLong: '3'}, $lt: {$numberLong: '7'}}"));
    }

    @Test
    void aVersionReadWholeIsClosedByItsReplacementUnderTheCloseFilterSoTheDriverSendsItWithTheNewVersions() {
        BsonDocument stored = rows.version(new ResultRow(new BsonString("apple"),
                new BsonDocument("revenue", new BsonInt32(6)), "h1"), "acme", attempt, 3);
        BsonValue storedId = stored.get("_id");

        ReplaceOneModel<BsonDocument> replacement = rows.closeWhole(stored, "acme", 3, 7);

        assertThat(replacement.getFilter().toBsonDocument()).as("the filter of the close by update")
            .isEqualTo(rows.close(storedId, "acme", 3, 7).getFilter().toBsonDocument());
        BsonDocument superseded = stored.clone();
        superseded.put(ViewFilter.TO_FIELD, new BsonInt64(7));
        assertThat(replacement.getReplacement()).as("the same version, superseded at the attempt's number")
            .isEqualTo(superseded);
        assertThat(List.copyOf(replacement.getReplacement().keySet())).as("its fields in their order")
            .isEqualTo(List.copyOf(stored.keySet()));
        assertThat(stored.getInt64(ViewFilter.TO_FIELD).getValue()).as("the version read is left as it was")
            .isEqualTo(ViewFilter.OPEN);
        assertThat(replacement.getReplaceOptions().isUpsert()).as("a version gone stays gone").isFalse();
    }

    @Test
    void anAttemptsClosesAndNewVersionsAreAllReplacementsWhenItReadItsVersionsWhole() {
        BsonDocument stored = rows.version(new ResultRow(new BsonString("apple"),
                new BsonDocument("revenue", new BsonInt32(6)), "h1"), "acme", attempt, 3);
        List<WriteModel<BsonDocument>> writes = new ArrayList<>();

        rows.addWrites(writes, "acme", List.of(new StoredRows.Stored(stored.get("_id"), new BsonString("apple"), "h1",
                stored, true)), List.of(new ResultRow(new BsonString("apple"), new BsonDocument("revenue",
                        new BsonInt32(7)), "h2")), new ObjectId(), 3, 7);

        assertThat(writes).hasSize(2).allMatch(write -> write instanceof ReplaceOneModel);
    }
}
