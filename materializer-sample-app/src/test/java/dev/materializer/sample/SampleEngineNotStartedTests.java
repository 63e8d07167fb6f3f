package dev.materializer.sample;

import java.time.Duration;
import java.util.Map;

import dev.materializer.core.Materializer;
import dev.materializer.spring.autoconfigure.MaterializerLifecycle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop with {@code materializer.auto-startup=false}, as a test that should not run the engine
 * has it (docs/testing.md): the app serves its API, the views are installed but never run, a wait
 * for them ends not fresh at its timeout, and the test may start the engine itself.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "materializer.auto-startup=false")
class SampleEngineNotStartedTests {

    @LocalServerPort
    int port;

    @Autowired
    Materializer materializer;

    @Autowired
    MaterializerLifecycle lifecycle;

    ShopApi api;

    @BeforeEach
    void connect() {
        this.api = new ShopApi(this.port);
    }

    @Test
    void theApiWorksTheViewsDoNotRunAndAWaitEndsNotFreshUntilTheTestStartsTheEngine() throws InterruptedException {
        this.api.install("idle");

        long began = System.nanoTime();
        ResponseEntity<Map<String, Object>> created = this.api.call(HttpMethod.POST, "/api/tenants/idle/orders?wait=300ms",
                Map.of("customer", "alice", "product", "widget", "quantity", 2, "price", 2.5));
        Duration answeredAfter = Duration.ofNanos(System.nanoTime() - began);

        assertThat(this.lifecycle.isRunning()).isFalse();
        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(created.getHeaders().getFirst("Materializer-Fresh")).isEqualTo("false");
        assertThat(answeredAfter).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(this.materializer.awaitIdle(Duration.ofMillis(300))).isFalse();
        assertThat(this.api.list("/api/tenants/idle/views")).hasSize(4)
            .allSatisfy(view -> assertThat(view.get("state")).isNull());

        this.lifecycle.start();

        assertThat(this.materializer.awaitIdle(Duration.ofSeconds(30))).isTrue();
        assertThat(this.api.rows("idle", "revenue")).extracting(row -> row.get("id")).containsExactly("widget");
    }
}
