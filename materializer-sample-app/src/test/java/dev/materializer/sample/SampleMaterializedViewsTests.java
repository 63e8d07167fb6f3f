package dev.materializer.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The views follow the orders, end to end on the embedded server: the engine watches the sources,
 * runs the views of a tenant after a burst (the view over a view after the view it reads), and the
 * shop reads the current generation. Each test uses a tenant of its own.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleMaterializedViewsTests {

    private static final Duration FOLLOW = Duration.ofSeconds(30);

    @LocalServerPort
    int port;

    ShopApi api;

    @BeforeEach
    void connect() {
        this.api = new ShopApi(this.port);
    }

    @Test
    void everyViewFollowsNewOrdersIncludingTheViewOverAView() {
        this.api.install("follow");

        this.api.order("follow", "alice", "widget", 2, 2.5);
        this.api.order("follow", "bob", "gadget", 1, 10);
        this.api.order("follow", "alice", "gizmo", 3, 1);

        await().atMost(FOLLOW).untilAsserted(() -> {
            assertThat(this.api.rows("follow", "revenue")).containsExactly(
                    row("gadget", Map.of("revenue", 10.0, "units", 1, "orders", 1)),
                    row("gizmo", Map.of("revenue", 3.0, "units", 3, "orders", 1)),
                    row("widget", Map.of("revenue", 5.0, "units", 2, "orders", 1)));
            assertThat(this.api.rows("follow", "top-customers", "-spent")).containsExactly(
                    row("bob", Map.of("spent", 10.0, "orders", 1)),
                    row("alice", Map.of("spent", 8.0, "orders", 2)));
            assertThat(this.api.rows("follow", "revenue-by-category")).containsExactly(
                    row("tools", Map.of("revenue", 5.0, "units", 2)),
                    row("toys", Map.of("revenue", 13.0, "units", 4)));
            assertThat(this.api.rows("follow", "best-product")).containsExactly(
                    row("best", Map.of("product", "gadget", "revenue", 10.0, "units", 1)));
        });
    }

    @Test
    void aReplacedOrderMovesItsRevenueAndADeletedOrderTakesItsRowsAway() {
        this.api.install("moves");
        String alices = this.api.order("moves", "alice", "widget", 1, 4);
        String bobs = this.api.order("moves", "bob", "gadget", 1, 2);
        await().atMost(FOLLOW).untilAsserted(() -> assertThat(this.api.rows("moves", "best-product"))
            .containsExactly(row("best", Map.of("product", "widget", "revenue", 4.0, "units", 1))));

        this.api.call(HttpMethod.PUT, "/api/tenants/moves/orders/" + bobs,
                Map.of("customer", "bob", "product", "gadget", "quantity", 5, "price", 2));
        await().atMost(FOLLOW).untilAsserted(() -> assertThat(this.api.rows("moves", "best-product"))
            .containsExactly(row("best", Map.of("product", "gadget", "revenue", 10.0, "units", 5))));

        this.api.call(HttpMethod.DELETE, "/api/tenants/moves/orders/" + alices);
        await().atMost(FOLLOW).untilAsserted(() -> {
            assertThat(this.api.rows("moves", "revenue")).extracting(view -> view.get("id")).containsExactly("gadget");
            assertThat(this.api.rows("moves", "top-customers")).extracting(view -> view.get("id")).containsExactly("bob");
            assertThat(this.api.rows("moves", "revenue-by-category")).extracting(view -> view.get("id"))
                .containsExactly("toys");
        });
    }

    @Test
    void aCatalogueChangeMovesRevenueBetweenCategories() {
        this.api.install("recategorise");
        this.api.order("recategorise", "alice", "widget", 1, 3);
        await().atMost(FOLLOW).untilAsserted(() -> assertThat(this.api.rows("recategorise", "revenue-by-category"))
            .extracting(view -> view.get("id")).containsExactly("tools"));

        this.api.call(HttpMethod.PUT, "/api/tenants/recategorise/products/widget",
                Map.of("name", "Widget", "category", "garden"));

        await().atMost(FOLLOW).untilAsserted(() -> assertThat(this.api.rows("recategorise", "revenue-by-category"))
            .containsExactly(row("garden", Map.of("revenue", 3.0, "units", 1))));
    }

    @Test
    void theActuatorEndpointListsEveryViewOfTheConfiguredTenantsOk() {
        await().atMost(FOLLOW).untilAsserted(() -> {
            List<Map<String, Object>> views = new ArrayList<>();
            for (String tenant : List.of("acme", "globex")) {
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> page = (List<Map<String, Object>>) this.api
                    .get("/actuator/materializer?partition=" + tenant).get("views");
                views.addAll(page);
            }
            assertThat(views).hasSize(8).allSatisfy(view -> assertThat(view).containsEntry("state", "ok"));
        });
    }

    private static Map<String, Object> row(String id, Map<String, Object> content) {
        return Map.of("id", id, "content", content);
    }
}
