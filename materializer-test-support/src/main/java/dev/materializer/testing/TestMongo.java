package dev.materializer.testing;

import java.util.Set;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;

/**
 * What a test gets: a client of the server, a fresh database on it, and what the server can do.
 *
 * @param kind the kind of server
 * @param connectionString how to reach the server, for code that builds its own client
 * @param client a client shared by the tests of this server; do not close it
 * @param database a database with a unique name, dropped after the test
 * @param capabilities what the server offers
 */
public record TestMongo(MongoKind kind, ConnectionString connectionString, MongoClient client,
        MongoDatabase database, Set<Capability> capabilities) {

    /** Whether the server offers the capability. */
    public boolean has(Capability capability) {
        return capabilities.contains(capability);
    }
}
