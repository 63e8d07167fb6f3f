package dev.materializer.benchmarks.scale;

import java.net.InetSocketAddress;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import dev.materializer.testing.server.InProcessBackend;

/**
 * An in-process test server of its own for one measurement, bound to 127.0.0.1 on a free port, stopped on
 * close. A server per measurement keeps the heap, the oplog and the data of one out of the next.
 *
 * <p>Its oplog is off at first and turned on by {@link #enableOplog()} once the view documents are
 * written, so the log holds the engine's writes only (the plain backend served every {@code getMore}
 * by scanning its whole oplog; the extended one reads only the entries after a stream's position,
 * but tens of thousands of setup entries would still be held for nothing). Every write of the engine
 * goes into it.
 *
 * <p>Its netty allocator is unpooled (unless {@code io.netty.allocator.type} is set): a pooled
 * allocator keeps heap chunks of megabytes, which appear and go between two heap readings and made
 * the idle heap per view swing by hundreds of bytes.
 *
 * <p>Shared with the cost report ({@code dev.materializer.benchmarks.cost}), which serves it from a
 * backend of its own that counts the documents each collection examines.
 */
public final class InProcessMongo implements AutoCloseable {

    static {
        // The server's netty pools heap buffers in chunks of megabytes that come and go with the
        // size of the messages; unpooled, the heap measured before and after a start holds none of them.
        if (System.getProperty("io.netty.allocator.type") == null) {
            System.setProperty("io.netty.allocator.type", "unpooled");
        }
    }

    private final MongoServer server;

    private final ConnectionString connectionString;

    /** A server of the in-process test server's backend (mongo-java-server, extended: see docs/compatibility.md). */
    public InProcessMongo() {
        this(new InProcessBackend());
    }

    /** A server of the given backend (a subclass of the in-memory one, say, that counts). */
    public InProcessMongo(MongoBackend backend) {
        this.server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        InetSocketAddress address = server.getLocalAddress();
        this.connectionString = new ConnectionString("mongodb://127.0.0.1:" + address.getPort());
    }

    /** The address of this server, for a client in another JVM: {@code mongodb://127.0.0.1:<port>}. */
    public String connectionString() {
        return connectionString.getConnectionString();
    }

    public void enableOplog() {
        server.enableOplog();
    }

    /** A new client of this server; the caller closes it. */
    public MongoClient client() {
        return MongoClients.create(MongoClientSettings.builder().applyConnectionString(connectionString).build());
    }

    /** A new client that tells the listeners (a {@link CommandCounter}, say) of every command it sends. */
    public MongoClient client(CommandListener... listeners) {
        MongoClientSettings.Builder settings = MongoClientSettings.builder().applyConnectionString(connectionString);
        for (CommandListener listener : listeners) {
            settings.addCommandListener(listener);
        }
        return MongoClients.create(settings.build());
    }

    @Override
    public void close() {
        server.shutdownNow();
    }
}
