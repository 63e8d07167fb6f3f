package dev.materializer.sample.embedded;

import com.mongodb.ConnectionString;
import de.bwaldvogel.mongo.MongoServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** When the embedded test server starts, and when a server of the user's own is used instead. */
@ExtendWith(OutputCaptureExtension.class)
class SampleEmbeddedMongoTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(EmbeddedMongoAutoConfiguration.class, MongoAutoConfiguration.class));

    @Test
    void withoutAServerTheEmbeddedTestServerStartsAndTheLogSaysItIsNotForProduction(CapturedOutput output) {
        this.runner.run(context -> {
            assertThat(context).hasSingleBean(MongoServer.class).hasBean("mongoHealthContributor");
            String uri = context.getBean(MongoConnectionDetails.class).getConnectionString().getConnectionString();
            assertThat(uri).startsWith("mongodb://127.0.0.1:").endsWith("/shop");
        });

        assertThat(output).contains("EMBEDDED in-process MongoDB TEST SERVER", "has no transactions",
                "is not for production", "set spring.mongodb.uri");
    }

    @Test
    void withAUriTheAppUsesThatServerAndBootsOwnHealthIndicator() {
        this.runner.withPropertyValues("spring.mongodb.uri=mongodb://db.example:27017/shop?replicaSet=rs0").run(context -> {
            assertThat(context).doesNotHaveBean(MongoServer.class).doesNotHaveBean("mongoHealthContributor");
            assertThat(context.getBean(MongoConnectionDetails.class).getConnectionString().getHosts())
                .containsExactly("db.example:27017");
        });
    }

    @Test
    void withAHostTheEmbeddedServerDoesNotStart() {
        this.runner.withPropertyValues("spring.mongodb.host=db.example")
            .run(context -> assertThat(context).doesNotHaveBean(MongoServer.class));
    }

    @Test
    void withConnectionDetailsOfItsOwnSuchAsAServiceConnectionTheEmbeddedServerDoesNotStart() {
        ConnectionString container = new ConnectionString("mongodb://localhost:27018/test?replicaSet=docker-rs");
        this.runner.withBean(MongoConnectionDetails.class, () -> () -> container).run(context -> {
            assertThat(context).doesNotHaveBean(MongoServer.class);
            assertThat(context.getBean(MongoConnectionDetails.class).getConnectionString()).isSameAs(container);
        });
    }
}
