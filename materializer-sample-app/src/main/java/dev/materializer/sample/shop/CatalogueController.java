package dev.materializer.sample.shop;

import java.util.List;

import dev.materializer.sample.TenantName;
import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Lists and changes a tenant's product catalogue (a change re-runs {@code revenue-by-category}). */
@RestController
@RequestMapping("/api/tenants/{tenant}/products")
class CatalogueController {

    private final Catalogue catalogue;

    private final Tenants tenants;

    CatalogueController(Catalogue catalogue, Tenants tenants) {
        this.catalogue = catalogue;
        this.tenants = tenants;
    }

    @GetMapping
    List<Product> products(@PathVariable String tenant) {
        return this.catalogue.products(TenantName.check(tenant));
    }

    @PutMapping("/{sku}")
    Product put(@PathVariable String tenant, @PathVariable String sku, @RequestBody ProductInput input) {
        this.tenants.requireInstalled(TenantName.check(tenant));
        Product product = Product.checked(sku, input.name(), input.category());
        this.catalogue.put(tenant, product);
        return product;
    }

    /**
     * A product as a client sends it.
     * @param name the name
     * @param category the category
     */
    record ProductInput(@Nullable String name, @Nullable String category) {
    }
}
