package dev.materializer.spring.web;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.JsonPath;
import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.spring.metrics.MaterializerLag;
import dev.materializer.spring.metrics.MaterializerMetricsListener;
import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The JSON an operator reads over HTTP, rendered by Boot's actuator from a fixed engine snapshot.
 * The engine is a hand-written test implementation: this checks the starter's plumbing and JSON
 * shape, not a MongoDB behaviour.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.MOCK,
        properties = { "management.endpoints.web.exposure.include=materializer,health,metrics",
                "management.endpoint.materializer.access=unrestricted",
                "management.endpoint.health.show-details=always", "management.health.mongodb.enabled=false" })
class ActuatorRenderingTests {

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RecordingMaterializer engine;

    private MockMvc mvc;

    @DynamicPropertySource
    static void mongo(DynamicPropertyRegistry registry) {
        registry.add("spring.mongodb.uri", () -> MongoServers.get(MongoKind.IN_PROCESS).server().connectionString()
            .getConnectionString() + "/rendering");
    }

    @BeforeEach
    void setUp() {
        this.mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
        this.engine.setSnapshot(Snapshots.running());
    }

    @Test
    void theEndpointRendersTheEngineItsCountsAndTheFirstPageOfViews() throws Exception {
        this.mvc.perform(get("/actuator/materializer"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.state").value("running"))
            .andExpect(jsonPath("$.reason").doesNotExist())
            .andExpect(jsonPath("$.openStreams").value(3))
            .andExpect(jsonPath("$.passesInFlight").value(2))
            .andExpect(jsonPath("$.lagSeconds").value(1.5))
            .andExpect(jsonPath("$.transactions").value(true))
            .andExpect(jsonPath("$.viewCounts.ok").value(1))
            .andExpect(jsonPath("$.viewCounts.pending").value(1))
            .andExpect(jsonPath("$.page").value(0))
            .andExpect(jsonPath("$.size").value(100))
            .andExpect(jsonPath("$.total").value(4))
            .andExpect(jsonPath("$.views[*].id", contains("broken", "totals", "a", "new")))
            .andExpect(jsonPath("$.views[1].partition").value("acme"))
            .andExpect(jsonPath("$.views[1].id").value("totals"))
            .andExpect(jsonPath("$.views[1].state").value("ok"))
            .andExpect(jsonPath("$.views[1].sources", contains("orders")))
            .andExpect(jsonPath("$.views[1].target").value("order_totals"))
            .andExpect(jsonPath("$.views[1].generation").value("0a1b"))
            .andExpect(jsonPath("$.views[1].lastRun").value("2026-01-02T03:04:05Z"))
            .andExpect(jsonPath("$.views[1].lastOutcome").value("changed"))
            .andExpect(jsonPath("$.views[1].lastMode").value("generation"))
            .andExpect(jsonPath("$.views[0].lastError").value("maxRows exceeded: 100001 rows"))
            .andExpect(jsonPath("$.views[1].lastReconciled").value("2026-01-02T04:00:00Z"))
            .andExpect(jsonPath("$.views[1].driftRows").value(3))
            .andExpect(jsonPath("$.views[3].lastReconciled").doesNotExist())
            .andExpect(jsonPath("$.views[3].driftRows").value(0))
            .andExpect(jsonPath("$.reconcile.round").value(4))
            .andExpect(jsonPath("$.reconcile.done").value(2))
            .andExpect(jsonPath("$.reconcile.total").value(3))
            .andExpect(jsonPath("$.reconcile.skipped").value(1))
            .andExpect(jsonPath("$.reconcile.nextRoundAt").doesNotExist())
            .andExpect(jsonPath("$.catchUp.total").value(12))
            .andExpect(jsonPath("$.catchUp.done").value(9))
            .andExpect(jsonPath("$.catchUp.running").value(2))
            .andExpect(jsonPath("$.catchUp.waiting").value(1));
    }

    @Test
    void theQueryParametersFilterAndPageTheViews() throws Exception {
        this.mvc.perform(get("/actuator/materializer").param("partition", "globex").param("size", "1").param("page", "1"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.page").value(1))
            .andExpect(jsonPath("$.size").value(1))
            .andExpect(jsonPath("$.total").value(2))
            .andExpect(jsonPath("$.views[*].id", contains("new")))
            .andExpect(jsonPath("$.viewCounts.ok").value(1));
        this.mvc.perform(get("/actuator/materializer").param("state", "errored"))
            .andExpect(jsonPath("$.total").value(1))
            .andExpect(jsonPath("$.views[*].id", contains("broken")));
        this.mvc.perform(get("/actuator/materializer").param("state", "broken"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.status").value(400))
            .andExpect(jsonPath("$.detail").value("Unknown state 'broken': the state is one of [pending, ok, errored, cycle, target_shared]"));
        this.mvc.perform(get("/actuator/materializer").param("size", "1001"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.detail").value("The size is between 1 and 1000, was 1001"));
        this.mvc.perform(get("/actuator/materializer").param("page", "first"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.detail").value("The page is a whole number, was 'first'"));
    }

    @Test
    void anIdWithASlashIsReachedWithTheIdInTheQueryOnReadAndInTheBodyOnWrite() throws Exception {
        this.engine.setSnapshot(new MaterializerSnapshot(EngineState.RUNNING, null, 1, 0, null, false,
                List.of(new ViewSnapshot("acme", "acme/revenue", ViewState.OK, List.of("orders"), "revenue", null, null, null,
                        null, null))));
        this.engine.onVerify("acme", "acme/revenue", CompletableFuture.completedFuture(
                new VerifyReport(new ViewKey("acme", "acme/revenue"), 2, 0, 0, 0, Duration.ofMillis(5), null)));

        this.mvc.perform(get("/actuator/materializer/acme").param("id", "acme/revenue"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.id").value("acme/revenue"))
            .andExpect(jsonPath("$.target").value("revenue"));
        this.mvc.perform(post("/actuator/materializer/acme").contentType(MediaType.APPLICATION_JSON)
            .content("{\"id\": \"acme/revenue\", \"action\": \"verify\"}"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.id").value("acme/revenue"))
            .andExpect(jsonPath("$.status").value("finished"))
            .andExpect(jsonPath("$.report.inSync").value(true));
        assertThat(this.engine.calls()).endsWith("verify acme/acme/revenue");
        // The id is required.
        this.mvc.perform(get("/actuator/materializer/acme")).andExpect(status().isBadRequest());
    }

    @Test
    void oneViewIsReadByPartitionAndIdAndAnUnknownOneIsNotFound() throws Exception {
        this.mvc.perform(get("/actuator/materializer/acme/broken"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.state").value("errored"))
            .andExpect(jsonPath("$.sources", contains("orders", "customers")));
        this.mvc.perform(get("/actuator/materializer/acme/nope")).andExpect(status().isNotFound());
    }

    @Test
    void aRefreshIsAPostThatReturnsTheReportOfThePass() throws Exception {
        this.engine.onRefresh("acme", "totals", CompletableFuture.completedFuture(new PassReport(
                new ViewKey("acme", "totals"), WriteMode.GENERATION, PassOutcome.UNCHANGED, 0, 0, Duration.ofMillis(12), null)));
        this.mvc.perform(post("/actuator/materializer/acme/totals"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.status").value("finished"))
            .andExpect(jsonPath("$.pass.outcome").value("unchanged"))
            .andExpect(jsonPath("$.pass.mode").value("generation"))
            .andExpect(jsonPath("$.pass.durationMillis").value(12));
    }

    @Test
    void anUnknownViewIsNotFoundOnWriteAsOnRead() throws Exception {
        this.mvc.perform(get("/actuator/materializer/acme/nope")).andExpect(status().isNotFound());
        this.mvc.perform(get("/actuator/materializer/acme").param("id", "nope")).andExpect(status().isNotFound());
        this.mvc.perform(post("/actuator/materializer/acme/nope")).andExpect(status().isNotFound());
        this.mvc.perform(post("/actuator/materializer/acme/nope/refresh")).andExpect(status().isNotFound());
        this.mvc.perform(post("/actuator/materializer/acme/nope/verify")).andExpect(status().isNotFound());
        this.mvc.perform(post("/actuator/materializer/acme").contentType(MediaType.APPLICATION_JSON)
            .content("{\"id\": \"acme/nope\"}")).andExpect(status().isNotFound());
        // A known id in another partition.
        this.mvc.perform(post("/actuator/materializer/globex/totals")).andExpect(status().isNotFound());
    }

    @Test
    void aVerifyIsAPostOfTheViewsVerifyActionThatReturnsWhatDiffers() throws Exception {
        this.engine.onVerify("acme", "totals", CompletableFuture.completedFuture(
                new VerifyReport(new ViewKey("acme", "totals"), 4, 0, 1, 0, Duration.ofMillis(8), null)));
        this.mvc.perform(post("/actuator/materializer/acme/totals/verify"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.partition").value("acme"))
            .andExpect(jsonPath("$.id").value("totals"))
            .andExpect(jsonPath("$.status").value("finished"))
            .andExpect(jsonPath("$.report.resultRows").value(4))
            .andExpect(jsonPath("$.report.missing").value(0))
            .andExpect(jsonPath("$.report.changed").value(1))
            .andExpect(jsonPath("$.report.extra").value(0))
            .andExpect(jsonPath("$.report.differences").value(1))
            .andExpect(jsonPath("$.report.inSync").value(false))
            .andExpect(jsonPath("$.report.durationMillis").value(8))
            .andExpect(jsonPath("$.report.error").doesNotExist())
            .andExpect(jsonPath("$.pass").doesNotExist());
        assertThat(this.engine.calls()).as("the context's engine, shared by the tests").endsWith("verify acme/totals");
    }

    @Test
    void theRefreshActionIsTheRefresh() throws Exception {
        this.engine.onRefresh("acme", "totals", CompletableFuture.completedFuture(new PassReport(
                new ViewKey("acme", "totals"), WriteMode.GENERATION, PassOutcome.UNCHANGED, 0, 0, Duration.ofMillis(12), null)));
        this.mvc.perform(post("/actuator/materializer/acme/totals/refresh"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.status").value("finished"))
            .andExpect(jsonPath("$.pass.outcome").value("unchanged"));
    }

    @Test
    void anUnknownActionIsABadRequest() throws Exception {
        int callsBefore = this.engine.calls().size();
        this.mvc.perform(post("/actuator/materializer/acme/totals/rebuild"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.title").value("Bad Request"))
            .andExpect(jsonPath("$.detail").value("Unknown action 'rebuild': the action is one of [refresh, verify]"));
        this.mvc.perform(post("/actuator/materializer/acme").contentType(MediaType.APPLICATION_JSON)
            .content("{\"id\": \"totals\", \"action\": \"rebuild\"}"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.detail").value("Unknown action 'rebuild': the action is one of [refresh, verify]"));
        this.mvc.perform(post("/actuator/materializer/acme").contentType(MediaType.APPLICATION_JSON)
            .content("{\"action\": \"verify\"}"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.detail").value("The body names the view: {\"id\": \"...\"}"));
        assertThat(this.engine.calls()).as("the unknown action ran nothing").hasSize(callsBefore);
    }

    @Test
    void theHealthHasTheMaterializerComponent() throws Exception {
        this.mvc.perform(get("/actuator/health"))
            .andExpect(jsonPath("$.components.materializer.status").value("UP"))
            .andExpect(jsonPath("$.components.materializer.details.errored.count").value(1))
            .andExpect(jsonPath("$.components.materializer.details.cycle.views[0].id").value("a"));
    }

    @Test
    void theMetersAreOnTheMetricsEndpoint(@Autowired MaterializerMetricsListener listener,
            @Autowired MaterializerLag lag,
            @Autowired dev.materializer.spring.observation.MaterializerObservationListener observations) throws Exception {
        int snapshotsBefore = this.engine.snapshotCalls();
        this.mvc.perform(get("/actuator/metrics/materializer.views").param("tag", "state:errored"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.measurements[0].value").value(1.0));
        this.mvc.perform(get("/actuator/metrics/materializer.streams.open"))
            .andExpect(jsonPath("$.measurements[0].value").value(3.0));
        this.mvc.perform(get("/actuator/metrics/materializer.passes.in.flight"))
            .andExpect(jsonPath("$.measurements[0].value").value(2.0));
        this.mvc.perform(get("/actuator/metrics/materializer.lag"))
            .andExpect(jsonPath("$.baseUnit").value("seconds"))
            .andExpect(jsonPath("$.measurements[0].value").value(0.0));
        assertThat(this.engine.snapshotCalls()).as("the gauges copied no view").isEqualTo(snapshotsBefore);
        this.engine.setCaughtUp(false);
        try {
            lag.onChange("orders", Duration.ofSeconds(2));
            assertThat(measurement("materializer.lag")).as("a change written 2 s ago, not yet applied")
                .isGreaterThanOrEqualTo(2.0);
        }
        finally {
            this.engine.setCaughtUp(true);
        }
        listener.onChange("orders", null);
        // The engine tells every listener; with Boot's observations the observation is the timer.
        PassReport pass = new PassReport(new ViewKey("acme", "totals"), WriteMode.GENERATION, PassOutcome.CHANGED,
                4, 1, Duration.ofMillis(30), null);
        observations.onPassStarted(pass.view());
        observations.onPassFinished(pass);
        listener.onPassFinished(pass);
        this.mvc.perform(get("/actuator/metrics/materializer.changes").param("tag", "source:orders"))
            .andExpect(jsonPath("$.measurements[0].value").value(1.0));
        this.mvc.perform(get("/actuator/metrics/materializer.pass").param("tag", "outcome:changed").param("tag", "mode:generation"))
            .andExpect(jsonPath("$.measurements[?(@.statistic == 'COUNT')].value", contains(1.0)))
            .andExpect(jsonPath("$.availableTags[*].tag", containsInAnyOrder("scope", "error")));
        this.mvc.perform(get("/actuator/metrics/materializer.rows.written"))
            .andExpect(jsonPath("$.measurements[0].value").value(4.0));
        this.mvc.perform(get("/actuator/metrics/materializer.reconcile.drift"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.availableTags").isEmpty());
        this.mvc.perform(get("/actuator/metrics/materializer.reconcile.views"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.availableTags[0].tag").value("result"))
            .andExpect(jsonPath("$.availableTags[0].values", containsInAnyOrder("in_sync", "drift", "pending")));
        double driftBefore = measurement("materializer.reconcile.drift");
        listener.onReconciled(new ViewKey("acme", "totals"),
                new VerifyReport(new ViewKey("acme", "totals"), 4, 1, 1, 0, Duration.ofMillis(3), null), true);
        assertThat(measurement("materializer.reconcile.drift")).isEqualTo(driftBefore + 2);
    }

    @Test
    void aViewATenantDoesNotHaveIsANotFoundProblemInTheApplicationsOwnController() throws Exception {
        this.mvc.perform(get("/shop/acme/nope"))
            .andExpect(status().isNotFound())
            .andExpect(jsonPath("$.status").value(404))
            .andExpect(jsonPath("$.title").value("Not Found"))
            .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.startsWith("Tenant 'acme' has no view 'nope'")))
            .andExpect(jsonPath("$.tenant").value("acme"))
            .andExpect(jsonPath("$.view").value("nope"));
    }

    private double measurement(String meter) throws Exception {
        String body = this.mvc.perform(get("/actuator/metrics/" + meter)).andReturn().getResponse().getContentAsString();
        return JsonPath.<Double>read(body, "$.measurements[0].value");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean
        RecordingMaterializer materializer() {
            return new RecordingMaterializer();
        }

        @Bean
        ShopController shopController(dev.materializer.spring.data.MaterializedViews views) {
            return new ShopController(views);
        }
    }

    /** A plain controller of the application that reads a view and lets the starter's exception out. */
    @org.springframework.web.bind.annotation.RestController
    static class ShopController {

        private final dev.materializer.spring.data.MaterializedViews views;

        ShopController(dev.materializer.spring.data.MaterializedViews views) {
            this.views = views;
        }

        @org.springframework.web.bind.annotation.GetMapping("/shop/{tenant}/{view}")
        Object view(@org.springframework.web.bind.annotation.PathVariable String tenant,
                @org.springframework.web.bind.annotation.PathVariable String view) {
            return this.views.viewDocument(tenant, view).toJson();
        }
    }
}
