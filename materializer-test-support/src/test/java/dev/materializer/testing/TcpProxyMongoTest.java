package dev.materializer.testing;

import java.util.concurrent.TimeUnit;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A MongoDB client through the proxy to the in-process server, which listens on a TCP port of the
 * loopback interface: a cut fails its operations while a direct client goes on; after a restore it
 * works again.
 */
@MongoTest(MongoKind.IN_PROCESS)
class TcpProxyMongoTest {

    @Test
    void aClientThroughTheProxyLosesTheServerWhileCutAndFindsItAgain(TestMongo mongo) throws Exception {
        try (TcpProxy proxy = TcpProxy.start(mongo.connectionString().getHosts().get(0));
                MongoClient proxied = MongoClients.create(MongoClientSettings.builder()
                    .applyConnectionString(new ConnectionString("mongodb://" + proxy.address()))
                    .applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(2, TimeUnit.SECONDS))
                    .applyToSocketSettings(socket -> socket.connectTimeout(1, TimeUnit.SECONDS))
                    // The monitor looks again soon after a failure, so a restored proxy is found in time.
                    .applyToServerSettings(server -> server.heartbeatFrequency(500, TimeUnit.MILLISECONDS)
                        .minHeartbeatFrequency(100, TimeUnit.MILLISECONDS))
                    .build())) {
            MongoCollection<Document> through = proxied.getDatabase(mongo.database().getName()).getCollection("c");
            MongoCollection<Document> direct = mongo.database().getCollection("c");
            through.insertOne(new Document("_id", 1));

            proxy.cut();

            assertThatThrownBy(() -> through.insertOne(new Document("_id", 2))).isInstanceOf(MongoException.class);
            direct.insertOne(new Document("_id", 3));

            proxy.restore();

            through.insertOne(new Document("_id", 4));
            assertThat(direct.countDocuments()).isEqualTo(3);
            assertThat(through.countDocuments()).isEqualTo(3);
        }
    }
}
