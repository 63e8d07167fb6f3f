package dev.materializer.sample;

import java.time.Duration;

import dev.materializer.core.Materializer;
import dev.materializer.sample.shop.OrderInput;
import dev.materializer.sample.shop.Orders;
import dev.materializer.spring.data.MaterializedViews;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mongodb.MongoDBContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application on a real MongoDB replica set in Docker: Testcontainers starts the container,
 * {@code @ServiceConnection} gives the application its connection. The test writes through the
 * application, waits until the view reflects the write, then asserts on the view. Skipped, with
 * the reason, where Docker is not available.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest
class SampleTestcontainersTests {

    @Container
    @ServiceConnection
    static MongoDBContainer mongo = new MongoDBContainer("mongo:8.0").withReplicaSet();

    @Autowired
    Materializer materializer;

    @Autowired
    MaterializedViews views;

    @Autowired
    Orders orders;

    @Test
    void anOrderIsInTheRevenueViewOnceTheViewIsFresh() throws InterruptedException {
        // The views the app installed at start are known to the engine and have run.
        assertThat(materializer.awaitIdle(Duration.ofSeconds(30))).isTrue();

        orders.create("acme", new OrderInput("alice", "widget", 2, 2.5));

        assertThat(views.awaitFresh("acme", "{tenant}:revenue", Duration.ofSeconds(10))).isTrue();
        assertThat(views.findByKey("acme", "{tenant}:revenue", "widget", Document.class))
            .hasValueSatisfying(row -> assertThat(row).containsEntry("revenue", 5.0).containsEntry("units", 2));
    }
}
