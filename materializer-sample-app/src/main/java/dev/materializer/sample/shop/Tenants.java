package dev.materializer.sample.shop;

import java.util.List;

import dev.materializer.sample.MaterializerFields;
import dev.materializer.sample.NotFoundException;
import dev.materializer.sample.TenantName;
import dev.materializer.spring.data.ViewTemplates;

import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Service;

import static org.springframework.data.mongodb.core.query.Criteria.where;

/**
 * The tenants of the shop. A tenant is installed when its views (the starter's {@link ViewTemplates}
 * of the {@link dev.materializer.sample.views.ShopViews} beans) and its starting catalogue are:
 * installing is idempotent, so it runs at every start for the configured tenants. Thread-safe.
 */
@Service
public class Tenants {

    private final MongoTemplate mongo;

    private final MaterializerFields fields;

    private final ViewTemplates views;

    private final Catalogue catalogue;

    Tenants(MongoTemplate mongo, MaterializerFields fields, ViewTemplates views, Catalogue catalogue) {
        this.mongo = mongo;
        this.fields = fields;
        this.views = views;
        this.catalogue = catalogue;
    }

    /**
     * Installs a tenant, or brings an installed one up to date, without resetting anything.
     * @param tenant the tenant name, checked here
     * @return the ids of its views
     */
    public List<String> install(String tenant) {
        TenantName.check(tenant);
        this.catalogue.seed(tenant);
        return this.views.installFor(tenant);
    }

    /**
     * Refuses a tenant that has no views.
     * @param tenant a checked tenant name
     * @throws NotFoundException when it is not installed
     */
    void requireInstalled(String tenant) {
        Query anyView = Query.query(where(this.fields.partitionField()).is(tenant));
        if (!this.mongo.exists(anyView, this.fields.viewsCollection())) {
            throw new NotFoundException("tenant '" + tenant + "' is not installed; install it with PUT /api/tenants/"
                    + tenant);
        }
    }
}
