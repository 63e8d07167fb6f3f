package dev.materializer.sample.shop;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import dev.materializer.sample.InvalidInputException;
import dev.materializer.sample.TenantName;
import dev.materializer.sample.views.FreshViews;
import org.jspecify.annotations.Nullable;

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

/**
 * Creates, reads, replaces and deletes the orders of a tenant. A write with {@code ?wait=2s} answers
 * once the tenant's views reflect it, or the wait is over, and says which in the header
 * {@value FreshViews#HEADER} ({@link FreshViews}).
 */
@RestController
@RequestMapping("/api/tenants/{tenant}/orders")
class OrderController {

    private final Orders orders;

    private final FreshViews fresh;

    OrderController(Orders orders, FreshViews fresh) {
        this.orders = orders;
        this.fresh = fresh;
    }

    @PostMapping
    ResponseEntity<Order> create(@PathVariable String tenant, @RequestBody OrderInput input,
            @RequestParam(name = FreshViews.PARAMETER, required = false) @Nullable String wait) {
        Duration timeout = FreshViews.waitOf(wait);
        Order order = this.orders.create(TenantName.check(tenant), input);
        return ResponseEntity.created(URI.create("/api/tenants/" + tenant + "/orders/" + order.id()))
            .headers(this.fresh.afterWrite(tenant, Orders.COLLECTION, timeout))
            .body(order);
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
    ResponseEntity<Order> replace(@PathVariable String tenant, @PathVariable String id, @RequestBody OrderInput input,
            @RequestParam(name = FreshViews.PARAMETER, required = false) @Nullable String wait) {
        Duration timeout = FreshViews.waitOf(wait);
        Order order = this.orders.replace(TenantName.check(tenant), id, input);
        return ResponseEntity.ok().headers(this.fresh.afterWrite(tenant, Orders.COLLECTION, timeout)).body(order);
    }

    @DeleteMapping("/{id}")
    ResponseEntity<Void> delete(@PathVariable String tenant, @PathVariable String id,
            @RequestParam(name = FreshViews.PARAMETER, required = false) @Nullable String wait) {
        Duration timeout = FreshViews.waitOf(wait);
        this.orders.delete(TenantName.check(tenant), id);
        return ResponseEntity.noContent().headers(this.fresh.afterWrite(tenant, Orders.COLLECTION, timeout)).build();
    }
}
