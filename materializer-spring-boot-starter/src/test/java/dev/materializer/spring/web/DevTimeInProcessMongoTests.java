package dev.materializer.spring.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.jayway.jsonpath.JsonPath;
import dev.materializer.testing.spring.InProcessMongoDevConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The recipe of the quick start: an application of one's own, run from a main class of the tests
 * with {@link InProcessMongoDevConfiguration}, starts without MongoDB and reports UP, MongoDB
 * included, with its engine running.
 */
class DevTimeInProcessMongoTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theApplicationRunsOnTheInProcessServerAndIsUp() throws Exception {
        try (ConfigurableApplicationContext context = SpringApplication.from(ShopApplication::main)
            .with(InProcessMongoDevConfiguration.class)
            .run("--server.port=0", "--management.endpoints.web.exposure.include=health,materializer",
                    "--management.endpoint.health.show-details=always")
            .getApplicationContext()) {
            int port = ((WebServerApplicationContext) context).getWebServer().getPort();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                String health = get(port, "/actuator/health");
                assertThat(JsonPath.<String>read(health, "$.components.mongo.status")).isEqualTo("UP");
                assertThat(JsonPath.<String>read(health, "$.components.materializer.status")).isEqualTo("UP");
                assertThat(JsonPath.<String>read(health, "$.status")).isEqualTo("UP");
            });
            assertThat(JsonPath.<String>read(get(port, "/actuator/materializer"), "$.state")).isEqualTo("running");
        }
    }

    private String get(int port, String path) throws Exception {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** An application as a user writes it: nothing in it knows of the in-process server. */
    @SpringBootApplication
    static class ShopApplication {

        public static void main(String[] args) {
            SpringApplication.run(ShopApplication.class, args);
        }
    }
}
