package dev.materializer.spring.web;

import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.Snapshots;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The endpoint exposed with no access set is read-only: its reads answer, its refresh and verify
 * do not exist (as for any Boot endpoint whose writes are not allowed), and the engine runs nothing.
 */
@SpringBootTest(classes = ActuatorRenderingTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.MOCK,
        properties = { "management.endpoints.web.exposure.include=materializer", "management.health.mongodb.enabled=false" })
class EndpointAccessTests {

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private RecordingMaterializer engine;

    private MockMvc mvc;

    @DynamicPropertySource
    static void mongo(DynamicPropertyRegistry registry) {
        registry.add("spring.mongodb.uri", () -> MongoServers.get(MongoKind.IN_PROCESS).server().connectionString()
            .getConnectionString() + "/access");
    }

    @BeforeEach
    void setUp() {
        this.mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
        this.engine.setSnapshot(Snapshots.running());
    }

    @Test
    void withoutAccessSetTheEndpointReadsButNeitherRefreshesNorVerifies() throws Exception {
        this.mvc.perform(get("/actuator/materializer")).andExpect(status().isOk());
        this.mvc.perform(get("/actuator/materializer/acme/totals")).andExpect(status().isOk());
        int callsBefore = this.engine.calls().size();
        this.mvc.perform(post("/actuator/materializer/acme/totals")).andExpect(status().is4xxClientError());
        this.mvc.perform(post("/actuator/materializer/acme/totals/verify")).andExpect(status().is4xxClientError());
        assertThat(this.engine.calls()).as("nothing ran").hasSize(callsBefore);
    }
}
