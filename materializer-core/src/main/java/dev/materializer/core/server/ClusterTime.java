package dev.materializer.core.server;

import com.mongodb.MongoException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster time the primary has reached, from the answer to a ping in a session: at or after the
 * time of every write it acknowledged before the call. A change stream that hands over an event of a
 * later time has handed over every change before the call, even while it never idles.
 */
public final class ClusterTime {

    private static final Logger log = LoggerFactory.getLogger(ClusterTime.class);

    private ClusterTime() {
    }

    /**
     * Reads the primary's cluster time now.
     * @param client the engine's client
     * @param database the engine's database (on the primary)
     * @return the time; null where the deployment keeps none (a standalone server, the in-process
     *     test server) or it could not be read
     */
    public static @Nullable BsonTimestamp now(MongoClient client, MongoDatabase database) {
        try (ClientSession session = client.startSession()) {
            database.runCommand(session, new BsonDocument("ping", new BsonInt32(1)));
            BsonDocument clusterTime = session.getClusterTime();
            return clusterTime != null && clusterTime.isTimestamp("clusterTime") ? clusterTime.getTimestamp("clusterTime")
                    : null;
        }
        catch (MongoException | UnsupportedOperationException | IllegalStateException ex) {
            log.debug("The cluster time was not read: {}", ex.toString());
            return null;
        }
    }
}
