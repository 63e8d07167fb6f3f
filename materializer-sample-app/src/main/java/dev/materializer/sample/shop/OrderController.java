package dev.materializer.sample.shop;

import java.net.URI;
import java.util.List;

import dev.materializer.sample.InvalidInputException;
import dev.materializer.sample.TenantName;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Creates, reads, replaces and deletes the orders of a tenant. */
@RestController
@RequestMapping("/api/tenants/{tenant}/orders")
class OrderController {

    private final Orders orders;

    OrderController(Orders orders) {
        this.orders = orders;
    }

    @PostMapping
    ResponseEntity<Order> create(@PathVariable String tenant, @RequestBody OrderInput input) {
        Order order = this.orders.create(TenantName.check(tenant), input);
        return ResponseEntity.created(URI.create("/api/tenants/" + tenant + "/orders/" + order.id())).body(order);
    }

    @GetMapping
    List<Order> latest(@PathVariable String tenant, @RequestParam(defaultValue = "100") int limit) {
        if (limit < 1 || limit > 1000) {
            throw new InvalidInputException("limit must be between 1 and 1000, was " + limit);
        }
        return this.orders.latest(TenantName.check(tenant), limit);
    }

    @GetMapping("/{id}")
    Order get(@PathVariable String tenant, @PathVariable String id) {
        return this.orders.get(TenantName.check(tenant), id);
    }

    @PutMapping("/{id}")
    Order replace(@PathVariable String tenant, @PathVariable String id, @RequestBody OrderInput input) {
        return this.orders.replace(TenantName.check(tenant), id, input);
    }

    @DeleteMapping("/{id}")
    ResponseEntity<Void> delete(@PathVariable String tenant, @PathVariable String id) {
        this.orders.delete(TenantName.check(tenant), id);
        return ResponseEntity.noContent().build();
    }
}
