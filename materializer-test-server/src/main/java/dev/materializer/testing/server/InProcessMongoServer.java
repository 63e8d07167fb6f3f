package dev.materializer.testing.server;

import de.bwaldvogel.mongo.MongoServer;

/**
 * Starts the in-process MongoDB test server: mongo-java-server on an {@link InProcessBackend}, its
 * change log on. For tests, the sample's embedded mode and the benchmarks; never for production.
 */
public final class InProcessMongoServer {

    private InProcessMongoServer() {
    }

    /** A server of a new {@link InProcessBackend}, not yet bound. */
    public static MongoServer create() {
        return create(new InProcessBackend());
    }

    /** A server of that backend (a subclass that counts, say), its change log on, not yet bound. */
    public static MongoServer create(InProcessBackend backend) {
        MongoServer server = new MongoServer(backend);
        server.enableOplog();
        return server;
    }
}
