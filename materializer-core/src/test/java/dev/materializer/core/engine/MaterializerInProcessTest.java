package dev.materializer.core.engine;

import java.util.Set;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import dev.materializer.core.server.CapabilityDetector;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import dev.materializer.testing.server.InProcessBackend;
import dev.materializer.testing.server.InProcessMongoServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine's scenarios on the in-process test server (generation path: it has no transactions). */
@MongoTest(MongoKind.IN_PROCESS)
class MaterializerInProcessTest extends MaterializerContract {

    /**
     * The test server keeps pre-images, as MongoDB 6 does; this one refuses them as MongoDB 5 does,
     * so the engine's path for a server without them runs here too.
     */
    @Test
    void onAServerThatRefusesPreImagesTheEngineRunsOnAndADeleteRunsWhole() {
        MongoServer server = InProcessMongoServer.create(InProcessBackend.refusingPreImages());
        try {
            ConnectionString uri = new ConnectionString(server.bindAndGetConnectionString());
            try (MongoClient client = MongoClients.create(uri)) {
                TestMongo refusing = new TestMongo(MongoKind.IN_PROCESS, uri, client, client.getDatabase("refused"),
                        Set.of());

                whereTheServerRefusesPreImagesTheEngineRunsOnAndADeleteRunsWhole(refusing);

                assertThat(CapabilityDetector.preImages(refusing.database(), "orders")).isFalse();
            }
        }
        finally {
            server.shutdownNow();
        }
    }
}
