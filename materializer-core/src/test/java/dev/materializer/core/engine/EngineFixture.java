package dev.materializer.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewFilter;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.bson.conversions.Bson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One engine on a test database, driven by a manual clock: tests write, wait for the engine to hear
 * the change, then move the clock past the debounce and wait for the work to drain.
 */
final class EngineFixture implements AutoCloseable {

    static final Duration DEBOUNCE = Duration.ofMillis(100);

    final TestMongo mongo;

    final MongoDatabase db;

    final ManualClock clock;

    final RecordingListener events = new RecordingListener();

    final ViewMaterializer engine;

    final MaterializerOptions options;

    EngineFixture(TestMongo mongo, ManualClock clock, UnaryOperator<MaterializerOptions.Builder> customize) {
        this(mongo, mongo.client(), clock, customize);
    }

    /** An engine on its own client (one with other defaults than the test's, say); the test still writes through the shared one. */
    EngineFixture(TestMongo mongo, MongoClient engineClient, ManualClock clock,
            UnaryOperator<MaterializerOptions.Builder> customize) {
        this.mongo = mongo;
        this.db = mongo.database();
        this.clock = clock;
        this.options = customize.apply(MaterializerOptions.builder()
            .debounce(DEBOUNCE)
            .rewatch(Duration.ofMillis(200))
            .clock(clock)
            .listener(events)).build();
        this.engine = new ViewMaterializer(engineClient, db.getName(), options);
    }

    EngineFixture(TestMongo mongo, UnaryOperator<MaterializerOptions.Builder> customize) {
        this(mongo, new ManualClock(), customize);
    }

    EngineFixture(TestMongo mongo) {
        this(mongo, builder -> builder);
    }

    EngineFixture start() {
        engine.start();
        await().atMost(RecordingListener.WAIT).until(() -> engine.snapshot().state() == EngineState.RUNNING);
        settle();
        return this;
    }

    /** Fires every debounce and retry timer due within the max delay, until the engine is idle. */
    void settle() {
        for (int round = 0; round < 5; round++) {
            drain();
            clock.advance(Duration.ofSeconds(1));
            drain();
        }
    }

    void drain() {
        try {
            if (!engine.drain(RecordingListener.WAIT)) {
                throw new AssertionError("the engine did not drain: " + engine.inFlight() + " in flight");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    MongoCollection<Document> collection(String name) {
        return db.getCollection(name);
    }

    MongoCollection<Document> views() {
        return db.getCollection(options.viewsCollection());
    }

    /** Defines a view: stages are JSON documents. */
    void defineView(String id, String partition, List<String> sources, String target, String... stages) {
        List<Document> pipeline = new ArrayList<>();
        Arrays.stream(stages).map(Document::parse).forEach(pipeline::add);
        views().insertOne(new Document("_id", id).append(options.partitionField(), partition)
            .append("collections", sources)
            .append("pipeline", pipeline)
            .append("targetCollection", target));
    }

    Document viewDocument(String id) {
        Document view = views().find(Filters.eq("_id", id)).first();
        if (view == null) {
            throw new AssertionError("no view " + id);
        }
        return view;
    }

    Document status(String id) {
        Document status = viewDocument(id).get(options.statusField(), Document.class);
        return status == null ? new Document() : status;
    }

    /** Waits until the stored status of a view says a state (its stored value, as {@code "ok"}). */
    void awaitStatus(String id, String state) {
        await().atMost(RecordingListener.WAIT).untilAsserted(() -> assertThat(status(id).getString("state"))
            .as("the stored state of view %s", id).isEqualTo(state));
    }

    /** What a reader sees of a view: its current generation, each row as its content plus {@code id}. */
    List<Document> rows(String id, String target) {
        Bson filter = ViewFilter.of(viewDocument(id), options.partitionField(), options.statusField());
        List<Document> rows = new ArrayList<>();
        for (Document stored : db.getCollection(target).find(filter).sort(Sorts.ascending("_id.id"))) {
            Document row = new Document("id", stored.get("_id", Document.class).get("id"));
            stored.forEach((key, value) -> {
                if (!key.equals("_id") && !key.equals(options.partitionField()) && !key.equals(ViewFilter.GENERATION_FIELD)
                        && !key.equals(ViewFilter.HASH_FIELD) && !key.equals(ViewFilter.FROM_FIELD)
                        && !key.equals(ViewFilter.TO_FIELD) && !key.equals(ViewFilter.ROW_FIELD)) {
                    row.append(key, value);
                }
            });
            rows.add(row);
        }
        return rows;
    }

    @Override
    public void close() {
        engine.close();
    }
}
