package dev.materializer.sample;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/** The shop's REST API on the embedded server: tenants, orders, and the answers to bad requests. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleShopApiTests {

    @LocalServerPort
    int port;

    ShopApi api;

    @BeforeEach
    void connect() {
        this.api = new ShopApi(this.port);
    }

    @Test
    void theConfiguredTenantsAreInstalledAtStartWithTheirFourViews() {
        List<Map<String, Object>> tenants = this.api.list("/api/tenants");

        assertThat(tenants).contains(
                Map.of("tenant", "acme", "views", List.of("best-product", "revenue", "revenue-by-category", "top-customers")),
                Map.of("tenant", "globex", "views", List.of("best-product", "revenue", "revenue-by-category", "top-customers")));
    }

    @Test
    void installingATenantTwiceGivesItItsViewsOnce() {
        this.api.install("twice");
        ResponseEntity<Map<String, Object>> again = this.api.call(HttpMethod.PUT, "/api/tenants/twice");

        assertThat(again.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(this.api.list("/api/tenants")).contains(
                Map.of("tenant", "twice", "views", List.of("best-product", "revenue", "revenue-by-category", "top-customers")));
        assertThat(this.api.list("/api/tenants/twice/views")).hasSize(4);
    }

    @Test
    void anOrderIsCreatedReadReplacedAndDeleted() {
        this.api.install("crud");

        ResponseEntity<Map<String, Object>> created = this.api.call(HttpMethod.POST, "/api/tenants/crud/orders",
                Map.of("customer", "alice", "product", "widget", "quantity", 2, "price", 2.5));
        String id = (String) created.getBody().get("id");
        String location = created.getHeaders().getLocation().toString();
        Map<String, Object> replaced = this.api.call(HttpMethod.PUT, location,
                Map.of("customer", "bob", "product", "gadget", "quantity", 1, "price", 10)).getBody();
        Map<String, Object> read = this.api.get(location);
        ResponseEntity<Map<String, Object>> deleted = this.api.call(HttpMethod.DELETE, location);
        ResponseEntity<Map<String, Object>> readAfter = this.api.call(HttpMethod.GET, location);

        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(location).isEqualTo("/api/tenants/crud/orders/" + id);
        assertThat(replaced).isEqualTo(read).containsEntry("customer", "bob").containsEntry("product", "gadget")
            .containsEntry("tenant", "crud");
        assertThat(deleted.getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
        assertThat(readAfter.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
    }

    @Test
    void anOrderOutOfRangeIsRefusedWithTheFieldItBreaks() {
        this.api.install("refusals");

        ResponseEntity<Map<String, Object>> answer = this.api.call(HttpMethod.POST, "/api/tenants/refusals/orders",
                Map.of("customer", "alice", "product", "widget", "quantity", 0, "price", 1));

        assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat((String) answer.getBody().get("detail")).startsWith("quantity must be a whole number from 1 to");
    }

    @Test
    void aTenantNotInstalledAndAnUnknownOrderAreNotFound() {
        ResponseEntity<Map<String, Object>> noTenant = this.api.call(HttpMethod.POST, "/api/tenants/nobody/orders",
                Map.of("customer", "alice", "product", "widget", "quantity", 1, "price", 1));
        ResponseEntity<Map<String, Object>> noOrder = this.api.call(HttpMethod.GET, "/api/tenants/acme/orders/nope");
        ResponseEntity<Map<String, Object>> badTenant = this.api.call(HttpMethod.GET, "/api/tenants/Bad:Name/views");

        assertThat(noTenant.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat((String) noTenant.getBody().get("detail")).contains("tenant 'nobody' is not installed");
        assertThat(noOrder.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(badTenant.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
    }

    @Test
    void theCatalogueOfATenantCanBeChanged() {
        this.api.install("catalogue");

        this.api.call(HttpMethod.PUT, "/api/tenants/catalogue/products/widget", Map.of("name", "Widget", "category", "garden"));

        assertThat(this.api.list("/api/tenants/catalogue/products"))
            .contains(Map.of("sku", "widget", "name", "Widget", "category", "garden"))
            .hasSize(5);
    }
}
