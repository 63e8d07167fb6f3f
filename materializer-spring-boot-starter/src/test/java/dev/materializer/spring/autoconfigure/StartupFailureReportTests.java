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

    @Test
    void aValueThatIsNotOfItsTypeIsReportedWithWhatTheTypeTakes(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run("--materializer.database=shop", "--materializer.debounce=fast"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value 'fast' for configuration property 'materializer.debounce'")
            .contains("it is not a duration, such as 500ms, 5s, 2m or PT5S")
            .contains("Set materializer.debounce to a duration");
    }

    @Test
    void aBadTemplateIsReportedByItsBeanAndWhatIsWrong(CapturedOutput output) {
        SpringApplication application = new SpringApplication(TemplateApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run("--materializer.database=shop"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("The view template bean 'intoViews' (id pattern '{tenant}:into-views') is invalid:")
            .contains("Fix the @Bean method 'intoViews'")
            .contains("Description:\n\nThe view template bean");
    }

    @Test
    void aBeanThatNeedsTheEngineWithoutAMongoClientIsReportedWithWhatToAdd(CapturedOutput output) {
        SpringApplication application = new SpringApplication(NoClientApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run("--materializer.database=shop"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("A bean of the application needs a Materializer, which the materializer starter did not create: "
                    + "there is no MongoClient bean")
            .contains("Add spring-boot-starter-data-mongodb");
    }

    @Test
    void aBeanThatNeedsTheEngineWhileItIsDisabledIsReportedNamingTheSwitch(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Application.class, NeedsTheEngine.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run("--materializer.enabled=false"));
        assertThat(output).contains("materializer.enabled is false, so the starter creates nothing")
            .contains("Remove materializer.enabled=false");
    }

    @Test
    void aMisspeltKeyIsWarnedOfWithTheNearestRealOne(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        try (var context = application.run("--materializer.database=shop", "--materializer.debouce=5s",
                "--materializer.reconcile.intervall=1m", "--materializer.storage-sources.orders=identity",
                "--materializer.maxRows=5", "--materializer.something-else-entirely=1")) {
            assertThat(output)
                .contains("The configuration property 'materializer.debouce' is not a materializer property and is "
                        + "ignored; did you mean 'materializer.debounce'?")
                .contains("'materializer.reconcile.intervall' is not a materializer property and is ignored; did you "
                        + "mean 'materializer.reconcile.interval'?")
                .contains("'materializer.something-else-entirely' is not a materializer property and is ignored\n")
                .doesNotContain("'materializer.storage-sources.orders' is not")
                .doesNotContain("'materializer.database' is not")
                .doesNotContain("'materializer.maxrows' is not").doesNotContain("'materializer.maxRows' is not");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(MaterializerAutoConfiguration.class)
    static class NoClientApplication {

        @Bean
        NeedsTheEngine needsTheEngine(dev.materializer.core.Materializer engine) {
            return new NeedsTheEngine();
        }
    }

    static class NeedsTheEngine {

        @org.springframework.beans.factory.annotation.Autowired
        void setEngine(dev.materializer.core.Materializer engine) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(dev.materializer.spring.autoconfigure.data.MaterializerDataAutoConfiguration.class)
    static class TemplateApplication {

        @Bean
        org.springframework.data.mongodb.core.MongoTemplate mongoTemplate() {
            return new org.springframework.data.mongodb.core.MongoTemplate(mock(MongoClient.class), "shop");
        }

        @Bean
        dev.materializer.spring.data.ViewTemplate intoViews() {
            return dev.materializer.spring.data.ViewTemplate.withId("{tenant}:into-views")
                .collections("orders").pipelineJson("[]").targetCollection("_aggregations").build();
        }
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
