package dev.materializer.sample.shop;

import dev.materializer.sample.ShopProperties;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/** Installs the tenants of {@code shop.tenants} at every start; installing again changes nothing. */
@Component
class TenantsAtStartup implements ApplicationRunner {

    private final Tenants tenants;

    private final ShopProperties properties;

    TenantsAtStartup(Tenants tenants, ShopProperties properties) {
        this.tenants = tenants;
        this.properties = properties;
    }

    @Override
    public void run(ApplicationArguments args) {
        this.properties.getTenants().forEach(this.tenants::install);
    }
}
