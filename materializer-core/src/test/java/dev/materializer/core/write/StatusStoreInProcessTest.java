package dev.materializer.core.write;

import java.time.Instant;
import java.util.Map;

import dev.materializer.core.view.CoveredTimes;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The status field of view documents: state, time and error, never the writers' fields. */
@MongoTest(MongoKind.IN_PROCESS)
class StatusStoreInProcessTest {

    private static final Instant AT = Instant.parse("2030-05-01T10:15:30.123Z");

    @Test
    void aStateWriteKeepsTheGenerationThePreviousGenerationAndTheLease(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        ViewStatus writers = new ViewStatus(null, null, null, Generation.of(8),
                new ViewStatus.Previous(Generation.of(6), AT.minusSeconds(5)),
                new ViewStatus.Lease("owner", AT.plusSeconds(60)), 4, 9);
        fixture.views().updateOne(new BsonDocument("_id", view.id()),
                new BsonDocument("$set", new BsonDocument(fixture.options.statusField(), writers.toBson())));
        StatusStore store = new StatusStore(mongo.database(), fixture.settings);

        store.write(view, ViewState.OK, null, AT);

        ViewStatus status = store.read(view);
        assertThat(status.state()).isEqualTo(ViewState.OK);
        assertThat(status.at()).isEqualTo(AT);
        assertThat(status.generation()).isEqualTo(writers.generation());
        assertThat(status.previous()).isEqualTo(writers.previous());
        assertThat(status.lease()).isEqualTo(writers.lease());
    }

    @Test
    void anErrorIsWrittenAndALaterOkStateUnsetsIt(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        StatusStore store = new StatusStore(mongo.database(), fixture.settings);

        store.write(view, ViewState.ERRORED, "the pipeline failed: boom", AT);
        assertThat(store.read(view).lastError()).isEqualTo("the pipeline failed: boom");
        assertThat(store.read(view).state()).isEqualTo(ViewState.ERRORED);

        store.write(view, ViewState.OK, null, AT.plusSeconds(1));
        assertThat(store.read(view).lastError()).isNull();
        assertThat(fixture.views().find().first().getDocument(fixture.options.statusField()))
            .doesNotContainKey("lastError");
    }

    @Test
    void aMalformedViewIsMarkedErroredByItsIdAndPartition(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        fixture.views().insertOne(BsonDocument.parse("{_id: 'broken', _part: 'acme', pipeline: 'not a pipeline'}"));
        fixture.views().insertOne(BsonDocument.parse("{_id: 'no-partition', pipeline: []}"));
        StatusStore store = new StatusStore(mongo.database(), fixture.settings);

        store.writeInvalid(new BsonString("broken"), "globex", "wrong partition", AT);
        store.writeInvalid(new BsonString("broken"), "acme", "pipeline must be an array of stages", AT);
        store.writeInvalid(new BsonString("no-partition"), null, "_part is missing", AT);

        BsonDocument broken = fixture.views().find(new BsonDocument("_id", new BsonString("broken"))).first();
        ViewStatus status = ViewStatus.fromBson(broken.getDocument(fixture.options.statusField()));
        assertThat(status.state()).isEqualTo(ViewState.ERRORED);
        assertThat(status.lastError()).isEqualTo("pipeline must be an array of stages");
        BsonDocument noPartition = fixture.views().find(new BsonDocument("_id", new BsonString("no-partition"))).first();
        assertThat(ViewStatus.fromBson(noPartition.getDocument(fixture.options.statusField())).lastError())
            .isEqualTo("_part is missing");
    }

    @Test
    void aViewWithoutStatusOrDocumentReadsAsNeverRun(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        StatusStore store = new StatusStore(mongo.database(), fixture.settings);

        assertThat(store.read(view)).isEqualTo(ViewStatus.NONE);
        fixture.views().deleteMany(new BsonDocument());
        assertThat(store.read(view)).isEqualTo(ViewStatus.NONE);
    }

    @Test
    void coveredTimesOnlyGrowAndKeepCollectionNamesWithDots(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo);
        ViewDefinition view = fixture.view("revenue", "acme", ViewFixture.REVENUE_BY_SHOP);
        StatusStore store = new StatusStore(mongo.database(), fixture.settings);
        BsonTimestamp early = new BsonTimestamp(100, 1);
        BsonTimestamp late = new BsonTimestamp(100, 7);

        store.write(view, ViewState.OK, null, AT, Map.of("shop.orders", late, "products", early));
        store.write(view, ViewState.OK, null, AT.plusSeconds(1), Map.of("shop.orders", early, "products", late));

        BsonDocument stored = store.readStored(view);
        assertThat(CoveredTimes.of(stored, "shop.orders")).as("an older time does not lower it").isEqualTo(late);
        assertThat(CoveredTimes.of(stored, "products")).isEqualTo(late);
        assertThat(CoveredTimes.of(stored, "shop")).isNull();
        assertThat(CoveredTimes.of(stored, "customers")).isNull();
        assertThat(CoveredTimes.key("a.b%2E")).isEqualTo("a%2Eb%252E");
        assertThat(store.read(view).state()).as("the rest of the status is as before").isEqualTo(ViewState.OK);
    }
}
