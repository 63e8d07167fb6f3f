package dev.materializer.sample;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Configuration of the sample shop under {@code shop.*}. Bound once at start. */
@ConfigurationProperties("shop")
public class ShopProperties {

    /** Tenants whose views and product catalogue are installed at start. */
    private List<String> tenants = new ArrayList<>(List.of("acme", "globex"));

    public List<String> getTenants() {
        return this.tenants;
    }

    public void setTenants(List<String> tenants) {
        this.tenants = tenants;
    }
}
