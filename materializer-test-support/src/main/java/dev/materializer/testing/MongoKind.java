package dev.materializer.testing;

/** The kind of MongoDB server a test runs against. */
public enum MongoKind {

    /**
     * The in-process test server {@code mongo-java-server} with its oplog enabled: always
     * available, one per JVM, no sessions or transactions.
     */
    IN_PROCESS,

    /**
     * A real replica set: the one named by the {@code MONGODB_URI} environment variable, else one
     * started by Testcontainers when Docker is available. Tests of this kind are skipped, with the
     * reason, where neither exists.
     */
    REPLICA_SET
}
