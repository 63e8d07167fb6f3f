package dev.materializer.sample;

import java.util.List;
import java.util.Map;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/** The shop's REST API for tests: answers of every status come back as entities, never as exceptions. */
public final class ShopApi {

    private static final ParameterizedTypeReference<Map<String, Object>> MAP = new ParameterizedTypeReference<>() {
    };

    private static final ParameterizedTypeReference<List<Map<String, Object>>> LIST = new ParameterizedTypeReference<>() {
    };

    private final RestClient rest;

    /**
     * A client of the app on this port.
     * @param port the app's port
     */
    public ShopApi(int port) {
        this.rest = RestClient.builder()
            .baseUrl("http://localhost:" + port)
            .defaultStatusHandler(status -> true, (request, response) -> {
            })
            .build();
    }

    /** Sends a request with an optional JSON body and reads a JSON object. */
    public ResponseEntity<Map<String, Object>> call(HttpMethod method, String uri, Object... body) {
        RestClient.RequestBodySpec request = this.rest.method(method).uri(uri);
        if (body.length > 0) {
            request.contentType(MediaType.APPLICATION_JSON).body(body[0]);
        }
        return request.retrieve().toEntity(MAP);
    }

    /** Reads a JSON array of objects. */
    public List<Map<String, Object>> list(String uri) {
        return this.rest.get().uri(uri).retrieve().body(LIST);
    }

    /** Reads a JSON object. */
    public Map<String, Object> get(String uri) {
        return this.rest.get().uri(uri).retrieve().body(MAP);
    }

    /** Installs a tenant. */
    public void install(String tenant) {
        call(HttpMethod.PUT, "/api/tenants/" + tenant);
    }

    /** Creates an order and gives its id. */
    public String order(String tenant, String customer, String product, int quantity, double price) {
        Map<String, Object> order = call(HttpMethod.POST, "/api/tenants/" + tenant + "/orders",
                Map.of("customer", customer, "product", product, "quantity", quantity, "price", price)).getBody();
        return (String) order.get("id");
    }

    /** The rows of a view, as {id, content} objects. */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> rows(String tenant, String view, String... sort) {
        String query = sort.length > 0 ? "?sort=" + sort[0] : "";
        return (List<Map<String, Object>>) get("/api/tenants/" + tenant + "/views/" + view + query).get("rows");
    }
}
