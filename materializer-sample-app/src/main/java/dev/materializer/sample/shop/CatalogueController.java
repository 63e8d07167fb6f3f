package dev.materializer.sample.shop;

import java.time.Duration;
import java.util.List;

import dev.materializer.sample.TenantName;
import dev.materializer.sample.views.FreshViews;
import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Lists and changes a tenant's product catalogue (a change re-runs {@code revenue-by-category}). A
 * change with {@code ?wait=2s} answers once the views that read the catalogue reflect it, or the wait
 * is over, and says which in the header {@value FreshViews#HEADER}.
 */
@RestController
@RequestMapping("/api/tenants/{tenant}/products")
class CatalogueController {

    private final Catalogue catalogue;

    private final Tenants tenants;

    private final FreshViews fresh;

    CatalogueController(Catalogue catalogue, Tenants tenants, FreshViews fresh) {
        this.catalogue = catalogue;
        this.tenants = tenants;
        this.fresh = fresh;
    }

    @GetMapping
    List<Product> products(@PathVariable String tenant) {
        return this.catalogue.products(TenantName.check(tenant));
    }

    @PutMapping("/{sku}")
    ResponseEntity<Product> put(@PathVariable String tenant, @PathVariable String sku, @RequestBody ProductInput input,
            @RequestParam(name = FreshViews.PARAMETER, required = false) @Nullable String wait) {
        Duration timeout = FreshViews.waitOf(wait);
        this.tenants.requireInstalled(TenantName.check(tenant));
        Product product = Product.checked(sku, input.name(), input.category());
        this.catalogue.put(tenant, product);
        return ResponseEntity.ok().headers(this.fresh.afterWrite(tenant, Catalogue.COLLECTION, timeout)).body(product);
    }

    /**
     * A product as a client sends it.
     * @param name the name
     * @param category the category
     */
    record ProductInput(@Nullable String name, @Nullable String category) {
    }
}
