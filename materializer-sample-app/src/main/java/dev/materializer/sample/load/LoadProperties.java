package dev.materializer.sample.load;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the load generator under {@code shop.load.*} (profile {@code load}). Bound once
 * at start; {@link #check()} refuses values out of range.
 */
@ConfigurationProperties("shop.load")
public class LoadProperties {

    /** Number of tenants to create, named {@code <tenant-prefix>-1} and up. */
    private int tenants = 3;

    /** Orders to create in each tenant before the updates start. */
    private int ordersPerTenant = 100;

    /** Updates per second to send once the orders exist. */
    private double rate = 20;

    /** Most updates to send; the stream stops at this count or after duration, whichever comes first. */
    private int updates = 1_000;

    /** Longest time to send updates. */
    private Duration duration = Duration.ofMinutes(1);

    /** How often to log progress. */
    private Duration progressEvery = Duration.ofSeconds(5);

    /** Prefix of the tenant names. */
    private String tenantPrefix = "load";

    /** Seed of the random choices, so a run can be repeated. */
    private long seed = 42;

    /**
     * Refuses values out of range, naming the key.
     * @throws IllegalArgumentException for the first value out of range
     */
    void check() {
        requireRange("shop.load.tenants", this.tenants, 1, 1_000);
        requireRange("shop.load.orders-per-tenant", this.ordersPerTenant, 1, 100_000);
        requireRange("shop.load.updates", this.updates, 0, 10_000_000);
        if (!(this.rate > 0 && this.rate <= 10_000)) {
            throw new IllegalArgumentException("shop.load.rate must be above 0 and at most 10000 per second, was "
                    + this.rate);
        }
        if (this.duration.isNegative() || this.duration.compareTo(Duration.ofHours(24)) > 0) {
            throw new IllegalArgumentException("shop.load.duration must be between 0s and 24h, was " + this.duration);
        }
        if (this.progressEvery.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("shop.load.progress-every must be at least 100ms, was " + this.progressEvery);
        }
    }

    private static void requireRange(String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    public int getTenants() {
        return this.tenants;
    }

    public void setTenants(int tenants) {
        this.tenants = tenants;
    }

    public int getOrdersPerTenant() {
        return this.ordersPerTenant;
    }

    public void setOrdersPerTenant(int ordersPerTenant) {
        this.ordersPerTenant = ordersPerTenant;
    }

    public double getRate() {
        return this.rate;
    }

    public void setRate(double rate) {
        this.rate = rate;
    }

    public int getUpdates() {
        return this.updates;
    }

    public void setUpdates(int updates) {
        this.updates = updates;
    }

    public Duration getDuration() {
        return this.duration;
    }

    public void setDuration(Duration duration) {
        this.duration = duration;
    }

    public Duration getProgressEvery() {
        return this.progressEvery;
    }

    public void setProgressEvery(Duration progressEvery) {
        this.progressEvery = progressEvery;
    }

    public String getTenantPrefix() {
        return this.tenantPrefix;
    }

    public void setTenantPrefix(String tenantPrefix) {
        this.tenantPrefix = tenantPrefix;
    }

    public long getSeed() {
        return this.seed;
    }

    public void setSeed(long seed) {
        this.seed = seed;
    }
}
