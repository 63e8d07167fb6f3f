package dev.materializer.core.engine;

import java.time.Duration;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.core.server.ClockSkew;
import dev.materializer.core.server.ServerCapabilities;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the first phase of a start learns of the deployment, before the running engine is built
 * from it: what the server can do, and how far this machine's clock is from the server's.
 * @param capabilities what the server can do (transactions, split large events)
 * @param skew this machine's time minus the server's
 */
record Deployment(ServerCapabilities capabilities, Duration skew) {

    private static final Logger log = LoggerFactory.getLogger(Deployment.class);

    /**
     * Asks the deployment, and says at INFO what it found.
     * @throws com.mongodb.MongoException when the deployment cannot be reached
     */
    static Deployment detect(MongoClient client, MongoDatabase database, MaterializerOptions options) {
        ServerCapabilities capabilities = CapabilityDetector.detect(client, database,
                options.checkpointsCollection());
        log.info("MongoDB {}: transactions {}; views are written {}; change events over 16 MB {}",
                capabilities.version() == null ? "(version unknown)" : capabilities.version(),
                capabilities.transactions() ? "available" : "not available",
                capabilities.transactions() ? "in one transaction for a diff of up to " + options.maxTransactionRows()
                        + " changed rows, else in groups" : "in groups",
                capabilities.splitLargeEvents() ? "come split and are put together" : "are not split");
        return new Deployment(capabilities, ClockSkew.measure(database, options.checkpointsCollection()));
    }

    boolean transactions() {
        return capabilities.transactions();
    }
}
