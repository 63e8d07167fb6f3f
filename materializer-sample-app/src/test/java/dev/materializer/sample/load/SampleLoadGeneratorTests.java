package dev.materializer.sample.load;

import java.util.concurrent.TimeUnit;

import dev.materializer.sample.ShopApi;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;

/** The profile {@code load} creates its tenants and orders, sends its updates, and stops by itself. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "shop.load.tenants=2", "shop.load.orders-per-tenant=5", "shop.load.updates=20", "shop.load.rate=500",
        "shop.load.progress-every=100ms" })
@ActiveProfiles("load")
class SampleLoadGeneratorTests {

    @Autowired
    LoadGenerator generator;

    @LocalServerPort
    int port;

    @Test
    void aBoundedRunCreatesEveryOrderSendsEveryUpdateAndEnds() throws Exception {
        LoadReport report = this.generator.done().get(2, TimeUnit.MINUTES);

        assertThat(report.tenants()).isEqualTo(2);
        assertThat(report.ordersCreated()).isEqualTo(10);
        assertThat(report.updatesSent()).isEqualTo(20);
        assertThat(report.errors()).isZero();
        assertThat(report.viewStates().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(8);
        ShopApi api = new ShopApi(this.port);
        assertThat(api.list("/api/tenants/load-1/orders")).hasSize(5);
        assertThat(api.list("/api/tenants/load-2/orders")).hasSize(5);
    }
}
