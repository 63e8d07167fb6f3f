package dev.materializer.sample.embedded;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import de.bwaldvogel.mongo.MongoServer;
import dev.materializer.testing.server.InProcessMongoServer;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aot.AotDetector;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoConnectionDetails;
import org.springframework.boot.mongodb.autoconfigure.health.MongoHealthContributorAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Starts the in-process MongoDB test server ({@link InProcessMongoServer}: mongo-java-server,
 * extended with update descriptions, pre-images and the {@code _id} index, its change log on) when
 * the application names no MongoDB server, and points the application's connection at it.
 *
 * <p>"Names no server" means: neither {@code spring.mongodb.uri} nor {@code spring.mongodb.host}
 * is set, and no other {@link MongoConnectionDetails} exists (such as the one a Testcontainers
 * {@code @ServiceConnection} registers, see {@code TestSampleApplication}). That last check is why
 * this is an auto-configuration: it is evaluated after the application's own beans and the service
 * connections, and before Boot's MongoDB auto-configuration.
 *
 * <p>The test server has no {@code hello} command, so Boot's MongoDB health indicator would say
 * DOWN; in this mode only, it is replaced by one that pings the embedded server. With a server of
 * your own none of this exists and Boot's own indicator reports the real server.
 *
 * <p>Under AOT (a native image, or {@code -Dspring.aot.enabled=true}) the conditions were decided
 * when the application was built: an application built without a server named runs on the embedded
 * one whatever it is told at run time. So at run time it refuses to start when a server is named
 * then ({@code SPRING_MONGODB_URI}, {@code spring.mongodb.uri} or {@code .host}), rather than ignore
 * it and keep the shop's data in memory; build it with the server named to use one.
 */
@AutoConfiguration(before = { MongoAutoConfiguration.class, MongoHealthContributorAutoConfiguration.class })
@Conditional(NoMongoServerConfigured.class)
@ConditionalOnMissingBean(MongoConnectionDetails.class)
public final class EmbeddedMongoAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedMongoAutoConfiguration.class);

    /** The database of the shop on the embedded server. */
    static final String DATABASE = "shop";

    @Bean(destroyMethod = "shutdownNow")
    MongoServer embeddedMongoServer(Environment environment) {
        requireNoServerNamedAtRunTime(environment, AotDetector.useGeneratedArtifacts());
        MongoServer server = InProcessMongoServer.create();
        // Loopback only, on a free port: the test server has no authentication.
        server.bind("127.0.0.1", 0);
        log.warn("No spring.mongodb.uri is set: started an EMBEDDED in-process MongoDB TEST SERVER "
                + "(mongo-java-server, extended) at {} for trying the sample. It keeps data in memory, has no "
                + "transactions and is not for production; set spring.mongodb.uri to use a real replica set.",
                server.getConnectionString());
        return server;
    }

    /**
     * Refuses to run on the embedded server when the conditions that chose it were decided at build
     * time (AOT) and the configuration now names a server. Visible for testing.
     */
    static void requireNoServerNamedAtRunTime(Environment environment, boolean aot) {
        if (aot && NoMongoServerConfigured.namesAServer(environment)) {
            throw new IllegalStateException("This application was AOT-processed without a MongoDB server named, so it "
                    + "was built to run on the embedded test server, but spring.mongodb.uri (or .host) is set now: "
                    + "AOT decides the configuration at build time and would ignore it. Build the application with "
                    + "the server named (spring.mongodb.uri set during process-aot or the native build), or run it "
                    + "without AOT (-Dspring.aot.enabled=false on the JVM).");
        }
    }

    @Bean
    MongoConnectionDetails embeddedMongoConnectionDetails(MongoServer embeddedMongoServer) {
        ConnectionString connectionString = new ConnectionString(
                embeddedMongoServer.getConnectionString() + "/" + DATABASE);
        return () -> connectionString;
    }

    // The name makes Boot's MongoDB health contributor back off (it is conditional on it).
    @Bean
    HealthIndicator mongoHealthContributor(MongoClient mongoClient) {
        return () -> {
            try {
                mongoClient.getDatabase("admin").runCommand(new Document("ping", 1));
                return Health.up().withDetail("server", "embedded in-process test server (mongo-java-server)").build();
            }
            catch (RuntimeException ex) {
                return Health.down(ex).build();
            }
        };
    }
}
