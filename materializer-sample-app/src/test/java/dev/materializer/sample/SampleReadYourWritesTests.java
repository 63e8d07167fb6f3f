package dev.materializer.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.materializer.core.Materializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Read-your-writes over REST: a write with {@code ?wait=} answers once the tenant's views reflect it
 * (header {@code Materializer-Fresh}), so the read right after it shows the write. The debounce is
 * {@value #DEBOUNCE} here, not the 100 ms of {@code application.yml}, so that a read right after a
 * write without the wait reliably comes before the views follow: the race the wait removes is real
 * in these tests, as the test without the wait shows. Each test uses a tenant of its own.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "materializer.debounce=" + SampleReadYourWritesTests.DEBOUNCE)
class SampleReadYourWritesTests {

    /** How long a tenant stays quiet after a change before its views run. */
    static final String DEBOUNCE = "2s";

    private static final String FRESH = "Materializer-Fresh";

    private static final Map<String, Object> ALICES_WIDGETS = Map.of("customer", "alice", "product", "widget",
            "quantity", 2, "price", 2.5);

    @LocalServerPort
    int port;

    @Autowired
    Materializer materializer;

    ShopApi api;

    @BeforeEach
    void connect() {
        this.api = new ShopApi(this.port);
    }

    @Test
    void aNewOrderWithAWaitIsInEveryViewOnceTheAnswerComes() throws InterruptedException {
        String tenant = installed("ryw-create");

        long began = System.nanoTime();
        ResponseEntity<Map<String, Object>> created = this.api.call(HttpMethod.POST,
                "/api/tenants/" + tenant + "/orders?wait=5s", ALICES_WIDGETS);
        Duration answeredAfter = Duration.ofNanos(System.nanoTime() - began);

        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(created.getHeaders().getFirst(FRESH)).isEqualTo("true");
        assertThat(this.api.rows(tenant, "revenue"))
            .containsExactly(row("widget", Map.of("revenue", 5.0, "units", 2, "orders", 1)));
        assertThat(this.api.rows(tenant, "top-customers")).containsExactly(row("alice", Map.of("spent", 5.0, "orders", 1)));
        assertThat(this.api.rows(tenant, "revenue-by-category"))
            .containsExactly(row("tools", Map.of("revenue", 5.0, "units", 2)));
        assertThat(this.api.rows(tenant, "best-product"))
            .containsExactly(row("best", Map.of("product", "widget", "revenue", 5.0, "units", 2)));
        // It waited for the pass the write caused, which runs a debounce after the write.
        assertThat(answeredAfter).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
    }

    /**
     * No wait for the engine between the install and the write: the engine may not have heard of the
     * new views yet when the wait begins, which the shop then asks for again (see
     * {@code SampleFreshViewsTests} for that path on its own).
     */
    @Test
    void anOrderRightAfterItsTenantIsInstalledIsInItsViewsOnceTheAnswerComes() {
        this.api.install("ryw-new");

        ResponseEntity<Map<String, Object>> created = this.api.call(HttpMethod.POST, "/api/tenants/ryw-new/orders?wait=5s",
                ALICES_WIDGETS);

        assertThat(created.getHeaders().getFirst(FRESH)).isEqualTo("true");
        assertThat(this.api.rows("ryw-new", "revenue"))
            .containsExactly(row("widget", Map.of("revenue", 5.0, "units", 2, "orders", 1)));
        assertThat(this.api.rows("ryw-new", "best-product")).extracting(row -> row.get("id")).containsExactly("best");
    }

    @Test
    void withoutAWaitTheSameReadComesBeforeTheViewsFollow() throws InterruptedException {
        String tenant = installed("ryw-nowait");

        ResponseEntity<Map<String, Object>> created = this.api.call(HttpMethod.POST,
                "/api/tenants/" + tenant + "/orders", ALICES_WIDGETS);
        List<Map<String, Object>> rightAfter = this.api.rows(tenant, "revenue");

        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(created.getHeaders().getFirst(FRESH)).isNull();
        assertThat(rightAfter).isEmpty();
        await().atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(this.api.rows(tenant, "revenue")).extracting(row -> row.get("id"))
                .containsExactly("widget"));
    }

    @Test
    void aReplacedOrderAChangedProductAndADeletedOrderAreInTheViewsOnceTheAnswerComes() throws InterruptedException {
        String tenant = installed("ryw-changes");
        String location = this.api.call(HttpMethod.POST, "/api/tenants/" + tenant + "/orders?wait=5s", ALICES_WIDGETS)
            .getHeaders().getLocation().toString();

        ResponseEntity<Map<String, Object>> replaced = this.api.call(HttpMethod.PUT, location + "?wait=5s",
                Map.of("customer", "bob", "product", "gadget", "quantity", 1, "price", 10));
        List<Map<String, Object>> revenueAfterReplace = this.api.rows(tenant, "revenue");
        ResponseEntity<Map<String, Object>> recategorised = this.api.call(HttpMethod.PUT,
                "/api/tenants/" + tenant + "/products/gadget?wait=5s", Map.of("name", "Gadget", "category", "garden"));
        List<Map<String, Object>> categoriesAfterChange = this.api.rows(tenant, "revenue-by-category");
        ResponseEntity<Map<String, Object>> deleted = this.api.call(HttpMethod.DELETE, location + "?wait=5s");
        List<Map<String, Object>> revenueAfterDelete = this.api.rows(tenant, "revenue");

        assertThat(replaced.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(replaced.getHeaders().getFirst(FRESH)).isEqualTo("true");
        assertThat(revenueAfterReplace).containsExactly(row("gadget", Map.of("revenue", 10.0, "units", 1, "orders", 1)));
        assertThat(recategorised.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(recategorised.getHeaders().getFirst(FRESH)).isEqualTo("true");
        assertThat(categoriesAfterChange).containsExactly(row("garden", Map.of("revenue", 10.0, "units", 1)));
        assertThat(deleted.getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
        assertThat(deleted.getHeaders().getFirst(FRESH)).isEqualTo("true");
        assertThat(revenueAfterDelete).isEmpty();
    }

    @Test
    void aBadWaitIsRefusedBeforeTheWriteNamingTheParameterAndWhatIsAllowed() throws InterruptedException {
        String tenant = installed("ryw-refusals");
        String orders = "/api/tenants/" + tenant + "/orders";
        String location = this.api.call(HttpMethod.POST, orders, ALICES_WIDGETS).getHeaders().getLocation().toString();

        for (String wait : List.of("forever", "11s", "0s", "-1s", "5", "")) {
            ResponseEntity<Map<String, Object>> created = this.api.call(HttpMethod.POST, orders + "?wait=" + wait,
                    ALICES_WIDGETS);

            assertThat(created.getStatusCode()).as("wait=%s", wait).isEqualTo(HttpStatus.BAD_REQUEST);
            assertThat((String) created.getBody().get("detail")).as("wait=%s", wait)
                .isEqualTo("wait must be a duration with its unit, more than 0 and at most 10s, such as 2s, 500ms or "
                        + "PT2S, was '" + wait + "'");
        }
        ResponseEntity<Map<String, Object>> replaced = this.api.call(HttpMethod.PUT, location + "?wait=1h",
                Map.of("customer", "bob", "product", "gadget", "quantity", 1, "price", 10));
        ResponseEntity<Map<String, Object>> deleted = this.api.call(HttpMethod.DELETE, location + "?wait=soon");
        ResponseEntity<Map<String, Object>> product = this.api.call(HttpMethod.PUT,
                "/api/tenants/" + tenant + "/products/gadget?wait=later", Map.of("name", "Gadget", "category", "garden"));

        assertThat(List.of(replaced, deleted, product)).allSatisfy(answer -> {
            assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
            assertThat((String) answer.getBody().get("detail")).startsWith("wait must be a duration");
        });
        // Refused before the write: one order, as it was created, and the catalogue as it was.
        assertThat(this.api.list(orders)).singleElement().satisfies(order -> assertThat(order)
            .containsEntry("customer", "alice").containsEntry("product", "widget"));
        assertThat(this.api.list("/api/tenants/" + tenant + "/products"))
            .contains(Map.of("sku", "gadget", "name", "Gadget", "category", "toys"));
    }

    /** Installs a tenant and waits until the engine has run its views, so that its next write is one pass away. */
    private String installed(String tenant) throws InterruptedException {
        this.api.install(tenant);
        assertThat(this.materializer.awaitIdle(Duration.ofSeconds(30))).isTrue();
        assertThat(this.api.list("/api/tenants/" + tenant + "/views"))
            .hasSize(4)
            .allSatisfy(view -> assertThat(view).containsEntry("state", "ok"));
        return tenant;
    }

    private static Map<String, Object> row(String id, Map<String, Object> content) {
        return Map.of("id", id, "content", content);
    }
}
