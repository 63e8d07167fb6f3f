package dev.materializer.spring.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.JsonPath;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.EngineState;
import dev.materializer.core.Materializer;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.ViewState;
import dev.materializer.spring.metrics.MaterializerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoServers;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter with the real engine on the in-process MongoDB test server, over HTTP: a view document
 * is defined, materializes, shows in the endpoint (paged and filtered), health and meters, refreshes
 * and verifies on request, a view whose id has a {@code /} is reached through the query and the body,
 * an unknown view answers 404 on read and on write, a row written by hand into its target is found
 * and rewritten by the reconciler, and the application closes while a pass is in flight and drains
 * it.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "management.endpoints.web.exposure.include=materializer,health,metrics",
                "management.endpoint.materializer.access=unrestricted",
                "management.endpoint.health.show-details=always",
                // The in-process server has no 'hello' command, so Boot's MongoDB indicator would say DOWN.
                "management.health.mongodb.enabled=false", "materializer.debounce=50ms" })
class MaterializerApplicationTests {

    private static final String DATABASE = "starter_" + UUID.randomUUID().toString().substring(0, 8);

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private MongoClient mongoClient;

    @DynamicPropertySource
    static void mongo(DynamicPropertyRegistry registry) {
        registry.add("spring.mongodb.uri", () -> uri(DATABASE));
    }

    @Test
    void aViewDefinedInTheDatabaseMaterializesAndShowsInTheEndpointHealthAndMeters() throws Exception {
        MongoDatabase database = this.mongoClient.getDatabase(DATABASE);
        database.getCollection("orders").insertMany(List.of(order("acme", "c1", 5), order("acme", "c1", 7),
                order("acme", "c2", 1), order("globex", "c1", 100)));
        database.getCollection("_aggregations").insertOne(totalsView("acme", "totals", "orders", "order_totals"));

        await().atMost(PATIENCE).untilAsserted(() -> {
            HttpResponse<String> view = get("/actuator/materializer/acme/totals");
            assertThat(view.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<String>read(view.body(), "$.state")).isEqualTo("ok");
        });
        Document viewDocument = database.getCollection("_aggregations").find(eq("_id", "totals")).first();
        assertThat(viewDocument).isNotNull();
        List<Document> rows = database.getCollection("order_totals").find(ViewFilter.of(viewDocument))
            .into(new ArrayList<>());
        assertThat(rows).extracting(row -> row.get("total")).containsExactlyInAnyOrder(12, 1);

        String whole = get("/actuator/materializer").body();
        assertThat(JsonPath.<String>read(whole, "$.state")).isEqualTo("running");
        assertThat(JsonPath.<List<String>>read(whole, "$.views[?(@.id == 'totals')].target")).containsExactly("order_totals");
        assertThat(JsonPath.<Integer>read(whole, "$.openStreams")).isPositive();
        assertThat(JsonPath.<Integer>read(whole, "$.viewCounts.ok")).isPositive();
        String acme = get("/actuator/materializer?partition=acme&state=ok").body();
        assertThat(JsonPath.<Integer>read(acme, "$.total")).isEqualTo(1);
        assertThat(JsonPath.<List<String>>read(acme, "$.views[*].id")).containsExactly("totals");
        String otherPartition = get("/actuator/materializer?partition=globex").body();
        assertThat(JsonPath.<Integer>read(otherPartition, "$.total")).isZero();
        assertThat(JsonPath.<List<Object>>read(otherPartition, "$.views")).isEmpty();

        String refreshed = post("/actuator/materializer/acme/totals").body();
        assertThat(JsonPath.<String>read(refreshed, "$.status")).isEqualTo("finished");
        assertThat(JsonPath.<String>read(refreshed, "$.pass.outcome")).isEqualTo("unchanged");

        // A verify compares the stored rows with a fresh run of the pipeline and writes nothing.
        String inSync = post("/actuator/materializer/acme/totals/verify").body();
        assertThat(JsonPath.<String>read(inSync, "$.status")).isEqualTo("finished");
        assertThat(JsonPath.<Integer>read(inSync, "$.report.resultRows")).isEqualTo(2);
        assertThat(JsonPath.<Integer>read(inSync, "$.report.differences")).isZero();
        assertThat(JsonPath.<Boolean>read(inSync, "$.report.inSync")).isTrue();
        // A row written by hand into the target: the verify sees it, and leaves it.
        Bson handWritten = and(ViewFilter.of(viewDocument), eq("total", 99));
        database.getCollection("order_totals").updateOne(and(ViewFilter.of(viewDocument), eq("total", 1)), set("total", 99));
        String edited = post("/actuator/materializer/acme/totals/verify").body();
        assertThat(JsonPath.<Integer>read(edited, "$.report.changed")).isEqualTo(1);
        assertThat(JsonPath.<Integer>read(edited, "$.report.missing")).isZero();
        assertThat(JsonPath.<Integer>read(edited, "$.report.extra")).isZero();
        assertThat(JsonPath.<Boolean>read(edited, "$.report.inSync")).isFalse();
        assertThat(database.getCollection("order_totals").countDocuments(handWritten)).as("the verify wrote nothing")
            .isEqualTo(1);
        database.getCollection("order_totals").updateOne(handWritten, set("total", 1));
        assertThat(post("/actuator/materializer/acme/nope/verify").statusCode()).as("as a read of it").isEqualTo(404);
        assertThat(post("/actuator/materializer/acme/nope").statusCode()).isEqualTo(404);
        assertThat(get("/actuator/materializer/acme/nope").statusCode()).isEqualTo(404);

        assertThat(JsonPath.<Double>read(get("/actuator/metrics/materializer.streams.open").body(), "$.measurements[0].value"))
            .isPositive();
        assertThat(JsonPath.<Double>read(get("/actuator/metrics/materializer.views?tag=state:ok").body(),
                "$.measurements[0].value")).isEqualTo(1.0);
        assertThat(JsonPath.<Double>read(get("/actuator/metrics/materializer.pass").body(), "$.measurements[0].value"))
            .as("passes counted").isGreaterThanOrEqualTo(2.0);
        // The orders above came before the view, so before its stream: a change now is counted.
        database.getCollection("orders").insertOne(order("acme", "c3", 2));
        await().atMost(PATIENCE).untilAsserted(() -> {
            HttpResponse<String> changes = get("/actuator/metrics/materializer.changes?tag=source:orders");
            assertThat(changes.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<Double>read(changes.body(), "$.measurements[0].value")).isPositive();
        });
        assertThat(get("/actuator/metrics/materializer.rows.written").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/metrics/materializer.lag").statusCode()).isEqualTo(200);

        String health = get("/actuator/health").body();
        assertThat(JsonPath.<String>read(health, "$.components.materializer.status")).isEqualTo("UP");
    }

    @Test
    void aViewWhoseIdHasASlashIsReadWithTheIdInTheQueryAndRefreshedWithTheIdInTheBody() throws Exception {
        MongoDatabase database = this.mongoClient.getDatabase(DATABASE);
        database.getCollection("orders").insertOne(order("initech", "c1", 3));
        database.getCollection("_aggregations")
            .insertOne(totalsView("initech", "initech/revenue", "orders", "initech_totals"));

        await().atMost(PATIENCE).untilAsserted(() -> {
            HttpResponse<String> view = get("/actuator/materializer/initech?id=initech/revenue");
            assertThat(view.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<String>read(view.body(), "$.state")).isEqualTo("ok");
        });
        assertThat(JsonPath.<String>read(get("/actuator/materializer/initech?id=initech%2Frevenue").body(), "$.id"))
            .as("percent-encoded in the query too").isEqualTo("initech/revenue");
        String listed = get("/actuator/materializer?partition=initech").body();
        assertThat(JsonPath.<List<String>>read(listed, "$.views[*].id")).containsExactly("initech/revenue");

        HttpResponse<String> refreshed = postJson("/actuator/materializer/initech", "{\"id\": \"initech/revenue\"}");
        assertThat(refreshed.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(refreshed.body(), "$.status")).isEqualTo("finished");
        assertThat(JsonPath.<String>read(refreshed.body(), "$.pass.outcome")).isEqualTo("unchanged");
        String verified = postJson("/actuator/materializer/initech",
                "{\"id\": \"initech/revenue\", \"action\": \"verify\"}").body();
        assertThat(JsonPath.<Boolean>read(verified, "$.report.inSync")).isTrue();
        assertThat(postJson("/actuator/materializer/initech", "{\"id\": \"initech/nope\"}").statusCode())
            .as("an unknown view, as on read").isEqualTo(404);
        assertThat(get("/actuator/materializer/initech?id=initech/nope").statusCode()).isEqualTo(404);
    }

    @Test
    void closingTheApplicationWhileAPassRunsDrainsItWithinTheShutdownTimeout(CapturedOutput output) {
        String databaseName = "starter_close_" + UUID.randomUUID().toString().substring(0, 8);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties("spring.mongodb.uri=" + uri(databaseName), "materializer.shutdown-timeout=20s",
                    "management.health.mongodb.enabled=false")
            .run();
        Materializer materializer = context.getBean(Materializer.class);
        MongoDatabase database = context.getBean(MongoClient.class).getDatabase(databaseName);
        List<Document> orders = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            orders.add(order("acme", "c" + (i % 1_500), i));
        }
        database.getCollection("orders").insertMany(orders);
        database.getCollection("_aggregations").insertOne(totalsView("acme", "big", "orders", "big_totals"));
        await().atMost(PATIENCE).until(() -> materializer.snapshot().state() == EngineState.RUNNING
                && materializer.view("acme", "big").isPresent());

        CompletableFuture<PassReport> pass = materializer.refresh("acme", "big");
        context.close();

        assertThat(pass).as("the pass in flight ended before the close returned").isDone();
        assertThat(pass).isCompleted();
        assertThat(materializer.snapshot().state()).isEqualTo(EngineState.STOPPED);
        assertThat(output).contains("Materializer drained").doesNotContain("Materializer abandoned");
    }

    @Test
    void theReconcilerFindsARowWrittenByHandIntoATargetCountsItAsDriftAndRewritesIt() {
        String databaseName = "starter_drift_" + UUID.randomUUID().toString().substring(0, 8);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties("spring.mongodb.uri=" + uri(databaseName), "management.health.mongodb.enabled=false",
                    "materializer.debounce=50ms", "materializer.reconcile.interval=1s",
                    "materializer.reconcile.max-per-second=50")
            .run();
        try (context) {
            Materializer materializer = context.getBean(Materializer.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            MongoDatabase database = context.getBean(MongoClient.class).getDatabase(databaseName);
            database.getCollection("orders").insertMany(List.of(order("acme", "c1", 5), order("acme", "c2", 1)));
            database.getCollection("_aggregations").insertOne(totalsView("acme", "totals", "orders", "order_totals"));
            await().atMost(PATIENCE).until(() -> materializer.view("acme", "totals")
                .filter(view -> view.state() == ViewState.OK).isPresent());
            // A round that found the view in sync: the reconciler runs, and its meters exist.
            await().atMost(PATIENCE).until(() -> reconciled(meters, "in_sync") >= 1);
            double driftBefore = meters.get(MaterializerMeters.RECONCILE_DRIFT).counter().count();
            Document viewDocument = database.getCollection("_aggregations").find(eq("_id", "totals")).first();
            assertThat(viewDocument).isNotNull();

            database.getCollection("order_totals").updateOne(and(ViewFilter.of(viewDocument), eq("total", 1)),
                    set("total", 99));

            await().atMost(PATIENCE).untilAsserted(() -> {
                Document status = database.getCollection("_aggregations").find(eq("_id", "totals")).first()
                    .get("_materializerStatus", Document.class);
                Document drift = status.get("reconcile", Document.class).get("drift", Document.class);
                assertThat(drift).as("the drift in the view's status").isNotNull();
                assertThat(drift.get("changed", Number.class).longValue()).isEqualTo(1);
                assertThat(drift.get("missing", Number.class).longValue()).isZero();
            });
            // The engine writes the status before it tells its listeners: the meters may follow a moment later.
            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(meters.get(MaterializerMeters.RECONCILE_DRIFT).counter().count())
                    .isGreaterThanOrEqualTo(driftBefore + 1);
                assertThat(reconciled(meters, "drift")).isPositive();
            });
            assertThat(materializer.view("acme", "totals").orElseThrow().driftRows()).isPositive();
            // Read the view document again: the rewrite may have flipped in a new generation.
            Document healed = database.getCollection("_aggregations").find(eq("_id", "totals")).first();
            assertThat(healed).isNotNull();
            List<Document> rows = database.getCollection("order_totals").find(ViewFilter.of(healed))
                .into(new ArrayList<>());
            assertThat(rows).as("rewritten from the pipeline").extracting(row -> row.get("total"))
                .containsExactlyInAnyOrder(5, 1);
        }
    }

    private static double reconciled(MeterRegistry meters, String result) {
        return meters.get(MaterializerMeters.RECONCILE_VIEWS).tag(MaterializerMeters.TAG_RESULT, result).counter().count();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> postJson(String path, String json) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Document order(String partition, String customer, int amount) {
        return new Document("_part", partition).append("customer", customer).append("amount", amount);
    }

    private static Document totalsView(String partition, String id, String source, String target) {
        return new Document("_id", id).append("_part", partition)
            .append("collections", List.of(source))
            .append("pipeline", List.of(new Document("$group",
                    new Document("_id", "$customer").append("total", new Document("$sum", "$amount")))))
            .append("targetCollection", target);
    }

    private static String uri(String database) {
        MongoServers.RunningServer server = MongoServers.get(MongoKind.IN_PROCESS).server();
        assertThat(server).as("the in-process MongoDB server").isNotNull();
        return "mongodb://" + server.connectionString().getHosts().get(0) + "/" + database;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

    }
}
