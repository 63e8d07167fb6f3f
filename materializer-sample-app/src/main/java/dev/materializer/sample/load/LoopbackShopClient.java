package dev.materializer.sample.load;

import java.util.List;
import java.util.Map;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The shop's REST API as the load generator calls it: always on the loopback address of this
 * application, never another host. Thread-safe.
 */
class LoopbackShopClient implements ShopClient {

    private static final ParameterizedTypeReference<List<Map<String, Object>>> LIST_OF_MAPS = new ParameterizedTypeReference<>() {
    };

    private final RestClient rest;

    LoopbackShopClient(int port) {
        this.rest = RestClient.builder().baseUrl("http://127.0.0.1:" + port).build();
    }

    @Override
    public void installTenant(String tenant) {
        this.rest.put().uri("/api/tenants/{tenant}", tenant).retrieve().toBodilessEntity();
    }

    @Override
    public String createOrder(String tenant, Map<String, Object> order) {
        Map<?, ?> created = this.rest.post()
            .uri("/api/tenants/{tenant}/orders", tenant)
            .contentType(MediaType.APPLICATION_JSON)
            .body(order)
            .retrieve()
            .body(Map.class);
        if (created == null || !(created.get("id") instanceof String id)) {
            throw new IllegalStateException("the shop answered a created order without an id: " + created);
        }
        return id;
    }

    @Override
    public void replaceOrder(String tenant, String id, Map<String, Object> order) {
        this.rest.put()
            .uri("/api/tenants/{tenant}/orders/{id}", tenant, id)
            .contentType(MediaType.APPLICATION_JSON)
            .body(order)
            .retrieve()
            .toBodilessEntity();
    }

    @Override
    public List<Map<String, Object>> views(String tenant) {
        List<Map<String, Object>> views = this.rest.get().uri("/api/tenants/{tenant}/views", tenant).retrieve().body(LIST_OF_MAPS);
        return views == null ? List.of() : views;
    }
}
