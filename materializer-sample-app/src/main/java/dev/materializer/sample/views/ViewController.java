package dev.materializer.sample.views;

import java.util.List;

import dev.materializer.sample.TenantName;
import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Reads the views of a tenant: their list with status, and the rows of one, current generation only. */
@RestController
@RequestMapping("/api/tenants/{tenant}/views")
class ViewController {

    private final ViewReader reader;

    ViewController(ViewReader reader) {
        this.reader = reader;
    }

    @GetMapping
    List<ViewSummary> views(@PathVariable String tenant) {
        return this.reader.views(TenantName.check(tenant));
    }

    @GetMapping("/{name}")
    ViewRows rows(@PathVariable String tenant, @PathVariable String name,
            @RequestParam(required = false) @Nullable String sort,
            @RequestParam(defaultValue = "1000") int limit) {
        return this.reader.rows(TenantName.check(tenant), name, sort, limit);
    }
}
