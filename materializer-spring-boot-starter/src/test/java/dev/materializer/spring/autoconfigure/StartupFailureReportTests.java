package dev.materializer.spring.autoconfigure;

import com.mongodb.client.MongoClient;
import dev.materializer.spring.testing.RecordingMaterializerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.mockito.Mockito.mock;

/** What a user reads when a bad value stops the application: Boot's failure analysis, naming the key. */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTests {

    @Test
    void aBadValueIsReportedWithItsKeyItsValueAndWhatIsAllowed(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run("--materializer.database=shop", "--materializer.max-rows=0"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value '0' for configuration property 'materializer.max-rows'")
            .contains("materializer.max-rows must be between 1 and 10000000, was 0");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(MaterializerAutoConfiguration.class)
    static class Application {

        @Bean
        MongoClient mongoClient() {
            return mock(MongoClient.class);
        }

        @Bean
        MaterializerFactory materializerFactory() {
            return new RecordingMaterializerFactory();
        }
    }
}
