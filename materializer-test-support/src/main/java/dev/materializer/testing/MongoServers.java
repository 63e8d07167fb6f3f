package dev.materializer.testing;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import dev.materializer.testing.server.InProcessMongoServer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mongodb.MongoDBContainer;

/**
 * The MongoDB servers of this JVM, one per kind, started on first use and stopped when the JVM
 * exits. Tests share a server and get a database of their own, which is far cheaper than a server
 * per test and is what several processes sharing a deployment look like.
 *
 * <p>Thread-safety: {@link #get(MongoKind)} is synchronized; JUnit may run classes in parallel.
 */
public final class MongoServers {

    /** The environment variable that names a real replica set (6.0 or later). */
    public static final String MONGODB_URI = "MONGODB_URI";

    /** The image Testcontainers starts when Docker is available and no URI is set. */
    public static final String MONGODB_IMAGE = "mongo:8.0";

    private static final Logger log = LoggerFactory.getLogger(MongoServers.class);

    private static final Map<MongoKind, Available> servers = new EnumMap<>(MongoKind.class);

    private MongoServers() {
    }

    /** The server of that kind, started if need be, or why there is none. */
    public static synchronized Available get(MongoKind kind) {
        return servers.computeIfAbsent(kind, MongoServers::start);
    }

    private static Available start(MongoKind kind) {
        try {
            return switch (kind) {
                case IN_PROCESS -> Available.of(inProcess());
                case REPLICA_SET -> replicaSet();
            };
        }
        catch (RuntimeException ex) {
            log.warn("The {} MongoDB server could not start", kind, ex);
            return Available.none("the " + kind + " MongoDB server could not start: " + ex);
        }
    }

    private static RunningServer inProcess() {
        MongoServer server = InProcessMongoServer.create();
        String connectionString = server.bindAndGetConnectionString();
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "mongo-java-server-stop"));
        return RunningServer.connect(MongoKind.IN_PROCESS, "the in-process test server (mongo-java-server, extended)",
                new ConnectionString(connectionString));
    }

    private static Available replicaSet() {
        String uri = System.getenv(MONGODB_URI);
        if (uri != null && !uri.isBlank()) {
            return Available.of(RunningServer.connect(MongoKind.REPLICA_SET, "the replica set of " + MONGODB_URI,
                    new ConnectionString(uri)));
        }
        if (!dockerAvailable()) {
            return Available.none("no real MongoDB replica set here: set " + MONGODB_URI
                    + " to a replica set (MongoDB 6.0 or later), or make a Docker engine available for Testcontainers");
        }
        MongoDBContainer container = new MongoDBContainer(MONGODB_IMAGE).withReplicaSet();
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "mongodb-container-stop"));
        return Available.of(RunningServer.connect(MongoKind.REPLICA_SET, "Testcontainers " + MONGODB_IMAGE,
                new ConnectionString(container.getReplicaSetUrl())));
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        }
        catch (RuntimeException | LinkageError ex) {
            return false;
        }
    }

    /**
     * A server that runs, or the reason there is none.
     *
     * @param server the server, when there is one
     * @param reason why there is none, when there is none
     */
    public record Available(@Nullable RunningServer server, @Nullable String reason) {

        static Available of(RunningServer server) {
            return new Available(server, null);
        }

        static Available none(String reason) {
            return new Available(null, reason);
        }
    }

    /**
     * A server that runs, with a client shared by its tests and the capabilities probed on it.
     *
     * @param kind the kind of server
     * @param description what it is, for logs and skip reasons
     * @param connectionString how to reach it
     * @param client the shared client
     * @param capabilities what it offers
     */
    public record RunningServer(MongoKind kind, String description, ConnectionString connectionString,
            MongoClient client, Set<Capability> capabilities) {

        static RunningServer connect(MongoKind kind, String description, ConnectionString connectionString) {
            MongoClient client = MongoClients.create(connectionString);
            Set<Capability> capabilities = CapabilityProbe.probe(client);
            log.info("MongoDB for tests: {} at {} offers {}", description, connectionString.getHosts(), capabilities);
            return new RunningServer(kind, description, connectionString, client, capabilities);
        }
    }
}
