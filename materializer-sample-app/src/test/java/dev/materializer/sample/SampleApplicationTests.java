package dev.materializer.sample;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationTests {

    @LocalServerPort
    int port;

    @Test
    void withoutAUriTheAppRunsOnTheEmbeddedServerAndIsHealthy() {
        RestClient client = RestClient.create("http://localhost:" + port);

        String info = client.get().uri("/api/info").retrieve().body(String.class);
        String health = client.get().uri("/actuator/health").retrieve().body(String.class);

        assertThat(info).contains("embedded test server");
        assertThat(health).contains("\"status\":\"UP\"").contains("embedded in-process test server");
    }
}
