package dev.materializer.sample.shop;

import java.util.List;

import dev.materializer.sample.views.ViewReader;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Lists the tenants with their views, and installs a tenant. */
@RestController
@RequestMapping("/api/tenants")
class TenantController {

    private final Tenants tenants;

    private final ViewReader views;

    TenantController(Tenants tenants, ViewReader views) {
        this.tenants = tenants;
        this.views = views;
    }

    @GetMapping
    List<TenantViews> tenants() {
        return this.views.tenants().entrySet().stream()
            .map(entry -> new TenantViews(entry.getKey(), entry.getValue()))
            .toList();
    }

    @PutMapping("/{tenant}")
    TenantViews install(@PathVariable String tenant) {
        List<String> ids = this.tenants.install(tenant);
        return new TenantViews(tenant, ids.stream().map(id -> id.substring(tenant.length() + 1)).toList());
    }

    /**
     * A tenant and its views.
     * @param tenant the tenant
     * @param views the names of its views (a view's id is {@code <tenant>:<name>})
     */
    record TenantViews(String tenant, List<String> views) {
    }
}
