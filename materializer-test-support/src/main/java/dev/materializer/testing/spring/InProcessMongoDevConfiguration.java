package dev.materializer.testing.spring;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoServers;
import org.bson.Document;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.mongodb.autoconfigure.MongoConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Runs an application on the in-process MongoDB test server ({@link MongoServers#get} of
 * {@link MongoKind#IN_PROCESS}: mongo-java-server with its oplog, so change streams work) instead of
 * a real MongoDB, for development: add it from a main class in your tests,
 * {@code SpringApplication.from(ShopApplication::main).with(InProcessMongoDevConfiguration.class).run(args)},
 * and start that with {@code ./mvnw spring-boot:test-run}.
 *
 * <p>Boot then connects to the server through these {@link MongoConnectionDetails} (its own, from
 * {@code spring.mongodb.uri}, back off), in the database {@code spring.mongodb.database}, or
 * {@value #DATABASE} when not set. And the health of MongoDB is a {@code ping}: Boot's indicator
 * asks for the {@code hello} command, which the in-process server does not know, so it would report
 * {@code DOWN} and with it {@code /actuator/health}. The server lives as long as the JVM; it has no
 * authentication and listens on the loopback only. Nothing is kept across runs.
 */
@Configuration(proxyBeanMethods = false)
public class InProcessMongoDevConfiguration {

    /** The database when {@code spring.mongodb.database} does not name one. */
    public static final String DATABASE = "dev";

    /**
     * The in-process server's address, with the database.
     * @param environment where {@code spring.mongodb.database} is read
     * @return the connection details Boot's MongoDB support uses
     */
    @Bean
    MongoConnectionDetails mongoConnectionDetails(Environment environment) {
        MongoServers.Available available = MongoServers.get(MongoKind.IN_PROCESS);
        if (available.server() == null) {
            throw new IllegalStateException("The in-process MongoDB server did not start: " + available.reason());
        }
        ConnectionString server = available.server().connectionString();
        String database = environment.getProperty("spring.mongodb.database", DATABASE);
        ConnectionString connectionString = new ConnectionString(
                "mongodb://" + String.join(",", server.getHosts()) + "/" + database);
        return () -> connectionString;
    }

    /** The health of MongoDB as a {@code ping}, in place of Boot's {@code hello}, when health is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class InProcessMongoHealth {

        // Named as Boot's indicator, which then backs off.
        @Bean
        HealthIndicator mongoHealthIndicator(MongoClient client) {
            return () -> {
                try {
                    client.getDatabase("admin").runCommand(new Document("ping", 1));
                    return Health.up().withDetail("server", "in-process mongo-java-server").build();
                }
                catch (RuntimeException ex) {
                    return Health.down(ex).build();
                }
            };
        }
    }
}
