package dev.materializer.sample;

import java.util.Map;

import de.bwaldvogel.mongo.MongoServer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Says which MongoDB the shop runs on. */
@RestController
class ShopInfoController {

    private final ObjectProvider<MongoServer> embeddedServer;

    ShopInfoController(ObjectProvider<MongoServer> embeddedServer) {
        this.embeddedServer = embeddedServer;
    }

    @GetMapping("/api/info")
    Map<String, String> info() {
        // The embedded server exists only when the application names no server of its own.
        boolean embedded = this.embeddedServer.getIfAvailable() != null;
        return Map.of("mongodb", embedded ? "embedded test server"
                : "configured by the application (spring.mongodb.* or a service connection)");
    }
}
