package dev.materializer.core.write;

import java.time.Instant;
import java.util.List;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.hash.PartitionTargetId;
import dev.materializer.core.hash.RowHasher;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterEach;
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

    private final ObjectId generation = new ObjectId();

    /** Never connected: the sweeper only needs a handle to be built. */
    private final MongoClient unconnected = MongoClients.create("mongodb://localhost:1/?serverSelectionTimeoutMS=1");

    @AfterEach
    void close() {
        unconnected.close();
    }

    @Test
    void anUpsertNamesTheStoredIdAndThePartition() {
        BsonDocument stored = rows.stored(new BsonString("apple"), new BsonDocument("revenue", new BsonInt32(6)), "h1",
                "acme", generation);

        BsonDocument filter = rows.upsert(stored).getFilter().toBsonDocument();

        assertThat(filter).isEqualTo(new BsonDocument("_id", stored.get("_id")).append(PARTITION_FIELD, ACME));
        assertThat(rows.upsert(stored).getReplaceOptions().isUpsert()).isTrue();
    }

    @Test
    void everyDeleteOfTheWritersNamesThePartition() {
        List<BsonValue> ids = List.of(rows.storedId(new BsonString("apple"), "acme", generation));

        assertThat(rows.byIds(ids, "acme").get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.inGeneration("acme", generation).get(PARTITION_FIELD)).isEqualTo(ACME);
        assertThat(rows.withoutGeneration("acme").get(PARTITION_FIELD)).isEqualTo(ACME);
    }

    @Test
    void theSweepNamesThePartition() {
        GenerationSweeper sweeper = new GenerationSweeper(unconnected.getDatabase("shop"),
                MaterializerOptions.builder().partitionField(PARTITION_FIELD).build());

        BsonDocument filter = sweeper.filter("acme", List.of(new BsonObjectId(generation)), List.of(), Instant.now());

        assertThat(filter.get(PARTITION_FIELD)).isEqualTo(ACME);
    }
}
