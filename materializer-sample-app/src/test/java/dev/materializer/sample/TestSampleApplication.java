package dev.materializer.sample;

import org.testcontainers.mongodb.MongoDBContainer;
import org.testcontainers.utility.DockerImageName;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * Runs the shop for development on a real MongoDB replica set in Docker (Testcontainers), so the
 * engine takes its transactional path and sees pre-images as in production:
 *
 * <pre>
 * ./mvnw -pl materializer-sample-app -am spring-boot:test-run
 * </pre>
 *
 * ({@code -am} builds the engine and the starter from this checkout; drop it when they are installed
 * in the local repository.) It needs Docker.
 *
 * The {@code @ServiceConnection} gives the application the container's connection, so the embedded
 * test server does not start.
 */
public final class TestSampleApplication {

    private TestSampleApplication() {
    }

    /**
     * Starts the shop on a MongoDB replica set in a container.
     * @param args the command-line arguments
     */
    public static void main(String[] args) {
        SpringApplication.from(SampleApplication::main).with(ReplicaSetContainer.class).run(args);
    }

    /** A single-node MongoDB replica set: change streams and transactions need one. */
    @TestConfiguration(proxyBeanMethods = false)
    static class ReplicaSetContainer {

        @Bean
        @ServiceConnection
        MongoDBContainer mongoDbContainer() {
            return new MongoDBContainer(DockerImageName.parse("mongo:8.0")).withReplicaSet();
        }
    }
}
