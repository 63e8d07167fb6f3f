package dev.materializer.sample;

import java.util.Map;

import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Says which MongoDB the shop runs on. */
@RestController
class ShopInfoController {

    private final Environment environment;

    ShopInfoController(Environment environment) {
        this.environment = environment;
    }

    @GetMapping("/api/info")
    Map<String, String> info() {
        boolean configured = environment.containsProperty("spring.mongodb.uri");
        return Map.of("mongodb", configured ? "configured by spring.mongodb.uri" : "embedded test server");
    }
}
