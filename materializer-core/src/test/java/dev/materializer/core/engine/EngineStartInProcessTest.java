package dev.materializer.core.engine;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.materializer.core.EngineState;
import dev.materializer.core.time.ManualClock;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TcpProxy;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The two-phase start: the deployment is detected, then the running engine is built from it; a
 * start that fails part way drops the engine it built, and the next attempt builds a new one. What
 * callers ask of the engine before one is built holds for the engine built later. The engine's
 * client goes through a proxy the test cuts, so a start fails where the test decides.
 */
@MongoTest(MongoKind.IN_PROCESS)
class EngineStartInProcessTest {

    private static final String VIEWS = "_aggregations";

    private final ManualClock clock = new ManualClock();

    private TcpProxy proxy;

    private MongoClient client;

    private EngineFixture fixture;

    @AfterEach
    void close() {
        if (fixture != null) {
            fixture.engine.close();
        }
        if (client != null) {
            client.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    /** An engine whose client goes through a proxy; the listener hears each command before it is sent. */
    private void engineThroughProxy(TestMongo mongo, CommandListener commands) throws IOException {
        proxy = TcpProxy.start(mongo.connectionString().getHosts().get(0));
        client = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString("mongodb://" + proxy.address()))
            .applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(250, TimeUnit.MILLISECONDS))
            .applyToSocketSettings(socket -> socket.connectTimeout(250, TimeUnit.MILLISECONDS))
            .applyToServerSettings(server -> server.heartbeatFrequency(500, TimeUnit.MILLISECONDS)
                .minHeartbeatFrequency(100, TimeUnit.MILLISECONDS))
            .addCommandListener(commands)
            .build());
        fixture = new EngineFixture(mongo, client, clock, builder -> builder.instanceId("starting")
            .maxBackoff(Duration.ofSeconds(1)));
        fixture.collection("orders").insertOne(MaterializerContract.order("o1", "acme", "apple", 2, 3));
        fixture.defineView("revenue", "acme", List.of("orders"), "revenue", MaterializerContract.REVENUE);
    }

    /** Starts the engine while MongoDB cannot be reached: it retries, and has no running engine yet. */
    private void startWhileCut(TestMongo mongo) throws IOException {
        engineThroughProxy(mongo, new CommandListener() { });
        proxy.cut();
        fixture.engine.start();
        await().atMost(RecordingListener.WAIT).until(() -> fixture.engine.snapshot().state() == EngineState.RETRYING);
    }

    private void awaitState(EngineState state) {
        await().atMost(RecordingListener.WAIT).until(() -> {
            clock.advance(Duration.ofMillis(500));
            return fixture.engine.snapshot().state() == state;
        });
    }

    @Test
    void aStartThatFailsWhileLoadingTheViewsDropsItsEngineAndTheNextAttemptRunsANewOne(TestMongo mongo)
            throws IOException {
        AtomicBoolean cutOnce = new AtomicBoolean();
        engineThroughProxy(mongo, new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                // The first read of the view documents: the views stream is open, the engine built.
                if (event.getCommandName().equals("find") && VIEWS.equals(event.getCommand().getString("find").getValue())
                        && cutOnce.compareAndSet(false, true)) {
                    proxy.cut();
                }
            }
        });

        fixture.engine.start();
        await().atMost(RecordingListener.WAIT).until(() -> fixture.engine.snapshot().state() == EngineState.RETRYING);

        assertThat(fixture.engine.snapshot().reason()).startsWith("cannot start");
        assertThat(fixture.engine.watchedStreams()).as("the dropped engine's streams are gone with it").isZero();
        assertThat(fixture.engine.snapshot().views()).isEmpty();

        proxy.restore();
        awaitState(EngineState.RUNNING);
        fixture.settle();

        assertThat(fixture.rows("revenue", "revenue")).containsExactly(new Document("id", "apple").append("revenue", 6));
        assertThat(fixture.engine.watchedStreams()).as("one views stream and one source stream, of the new engine")
            .isEqualTo(2);
    }

    @Test
    void aWaitForFreshnessBegunBeforeTheEngineIsBuiltWaitsForIt(TestMongo mongo) throws IOException {
        startWhileCut(mongo);

        CompletableFuture<Boolean> fresh = CompletableFuture.supplyAsync(() -> {
            try {
                return fixture.engine.awaitFresh("acme", "revenue", RecordingListener.WAIT);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        proxy.restore();
        await().atMost(RecordingListener.WAIT).until(() -> {
            clock.advance(Duration.ofMillis(500));
            return fresh.isDone();
        });

        assertThat(fresh.join()).as("the wait outlived the engine-less start and saw the view run").isTrue();
        assertThat(fixture.rows("revenue", "revenue")).containsExactly(new Document("id", "apple").append("revenue", 6));
    }

    @Test
    void intakeStoppedBeforeTheEngineIsBuiltStaysStoppedInTheEngineBuiltLater(TestMongo mongo) throws IOException {
        startWhileCut(mongo);

        fixture.engine.stopIntake();
        proxy.restore();
        awaitState(EngineState.RUNNING);

        assertThat(fixture.engine.running().scheduler().intake()).isFalse();
    }
}
