package dev.materializer.sample.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bounds of a load run, against a recording shop (the HTTP side is covered by SampleLoadGeneratorTests). */
class SampleLoadRunTests {

    @Test
    void theUpdateCountBoundsTheRunAndEveryOrderIsCreatedFirst() throws Exception {
        RecordingShop shop = new RecordingShop();

        LoadReport report = new LoadRun(shop, properties(2, 3, 7, Duration.ofMinutes(1))).run();

        assertThat(shop.tenants).containsExactly("load-1", "load-2");
        assertThat(shop.created).isEqualTo(6);
        assertThat(shop.replaced).isEqualTo(7);
        assertThat(report.ordersCreated()).isEqualTo(6);
        assertThat(report.updatesSent()).isEqualTo(7);
        assertThat(report.viewStates()).containsEntry("ok", 2L).containsEntry("pending", 2L);
    }

    @Test
    void aZeroDurationSendsNoUpdates() throws Exception {
        RecordingShop shop = new RecordingShop();

        LoadReport report = new LoadRun(shop, properties(1, 1, 1_000, Duration.ZERO)).run();

        assertThat(report.updatesSent()).isZero();
        assertThat(shop.replaced).isZero();
    }

    @Test
    void failedRequestsAreCountedAndTheRunGoesOn() throws Exception {
        RecordingShop shop = new RecordingShop();
        shop.failUpdates = true;

        LoadReport report = new LoadRun(shop, properties(1, 2, 5, Duration.ofMinutes(1))).run();

        assertThat(report.updatesSent()).isEqualTo(5);
        assertThat(report.errors()).isEqualTo(5);
    }

    @Test
    void anInterruptEndsTheRun() {
        RecordingShop shop = new RecordingShop();
        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> new LoadRun(shop, properties(1, 5, 5, Duration.ofMinutes(1))).run())
            .isInstanceOf(InterruptedException.class);
        assertThat(shop.created).isZero();
    }

    @Test
    void valuesOutOfRangeAreRefusedWithTheirKey() {
        assertThatThrownBy(() -> properties(0, 1, 1, Duration.ZERO).check()).hasMessageStartingWith("shop.load.tenants must be");
        LoadProperties rate = properties(1, 1, 1, Duration.ZERO);
        rate.setRate(0);
        assertThatThrownBy(rate::check).hasMessageStartingWith("shop.load.rate must be");
        assertThatThrownBy(() -> properties(1, 1, 1, Duration.ofDays(2)).check())
            .hasMessageStartingWith("shop.load.duration must be");
    }

    private static LoadProperties properties(int tenants, int orders, int updates, Duration duration) {
        LoadProperties properties = new LoadProperties();
        properties.setTenants(tenants);
        properties.setOrdersPerTenant(orders);
        properties.setUpdates(updates);
        properties.setDuration(duration);
        // Fast enough that the test does not wait on the pacing.
        properties.setRate(10_000);
        return properties;
    }

    /** Records the calls; the first tenant's views are ok, the others' never ran. */
    static final class RecordingShop implements ShopClient {

        final List<String> tenants = new ArrayList<>();

        int created;

        int replaced;

        boolean failUpdates;

        @Override
        public void installTenant(String tenant) {
            this.tenants.add(tenant);
        }

        @Override
        public String createOrder(String tenant, Map<String, Object> order) {
            this.created++;
            return tenant + "-" + this.created;
        }

        @Override
        public void replaceOrder(String tenant, String id, Map<String, Object> order) {
            if (this.failUpdates) {
                throw new IllegalStateException("503 from the shop");
            }
            this.replaced++;
        }

        @Override
        public List<Map<String, Object>> views(String tenant) {
            Map<String, Object> view = tenant.equals("load-1") ? Map.of("state", "ok") : Map.of();
            return List.of(view, view);
        }
    }
}
