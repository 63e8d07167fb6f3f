package dev.materializer.core.engine;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's own threads, as the architecture says: each named {@code materializer-…} after its
 * job, all daemons (an engine never keeps a JVM alive), and all ended by {@code close()}.
 */
@MongoTest(MongoKind.IN_PROCESS)
class EngineThreadsInProcessTest {

    @Test
    void theEngineMakesNamedDaemonThreadsAndEndsThemWhenClosed(TestMongo mongo) throws InterruptedException {
        mongo.database().getCollection("orders").insertOne(new Document("_id", "o1").append("_part", "acme")
            .append("product", "apple").append("quantity", 1).append("price", 2));
        mongo.database().getCollection("_aggregations").insertOne(new Document("_id", "revenue").append("_part", "acme")
            .append("collections", List.of("orders"))
            .append("pipeline", List.of(Document.parse(MaterializerContract.REVENUE)))
            .append("targetCollection", "revenue"));
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        ViewMaterializer engine = new ViewMaterializer(mongo.client(), mongo.database().getName(),
                MaterializerOptions.builder().instanceId("threads").build());
        Set<Thread> ours;
        try {
            engine.start();
            await().atMost(RecordingListener.WAIT).until(() -> engine.snapshot().state() == EngineState.RUNNING);
            assertThat(engine.awaitIdle(RecordingListener.WAIT)).isTrue();

            ours = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> !before.contains(thread) && thread.getName().startsWith("materializer-"))
                .collect(Collectors.toSet());
            // The heartbeat's thread comes with the first beat after the start, a third of the lease later.
            assertThat(ours).extracting(Thread::getName)
                .contains("materializer-stream-orders", "materializer-stream-_aggregations", "materializer-timer")
                .anySatisfy(name -> assertThat(name).startsWith("materializer-pass-"));
            assertThat(ours).allSatisfy(thread -> assertThat(thread.isDaemon()).as(thread.getName()).isTrue());
        }
        finally {
            engine.close();
        }
        await().atMost(RecordingListener.WAIT).until(() -> ours.stream().noneMatch(Thread::isAlive));
    }
}
