package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import com.mongodb.client.MongoClient;
import dev.materializer.core.EngineState;
import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PartitionMapping;
import dev.materializer.spring.autoconfigure.endpoint.MaterializerEndpointAutoConfiguration;
import dev.materializer.spring.endpoint.MaterializerUiEndpoint;
import dev.materializer.spring.autoconfigure.health.MaterializerHealthAutoConfiguration;
import dev.materializer.spring.autoconfigure.metrics.MaterializerMetricsAutoConfiguration;
import dev.materializer.spring.endpoint.MaterializerEndpoint;
import dev.materializer.spring.endpoint.MaterializerWebEndpointExtension;
import dev.materializer.spring.health.MaterializerHealthIndicator;
import dev.materializer.spring.metrics.MaterializerLag;
import dev.materializer.spring.metrics.MaterializerMeterBinder;
import dev.materializer.spring.metrics.MaterializerMetricsListener;
import dev.materializer.spring.testing.RecordingMaterializer;
import dev.materializer.spring.testing.RecordingMaterializerFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.Mockito.mock;

/**
 * The auto-configuration's beans and their conditions. The engine is created through a recording
 * factory, so these tests read what the starter hands the engine without a MongoDB server.
 */
class MaterializerAutoConfigurationTests {

    private final RecordingMaterializerFactory factory = new RecordingMaterializerFactory();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MaterializerAutoConfiguration.class,
                MaterializerEndpointAutoConfiguration.class, MaterializerHealthAutoConfiguration.class,
                MaterializerMetricsAutoConfiguration.class))
        .withPropertyValues("materializer.database=shop");

    private ApplicationContextRunner withMongoClient() {
        return this.runner.withBean(MongoClient.class, () -> mock(MongoClient.class))
            .withBean(MaterializerFactory.class, () -> this.factory);
    }

    @Test
    void runWithMongoClientShouldCreateTheLifecycleThePropertiesAndTheDefaultFactory() {
        // The engine is the user's here: this class tests the starter, not the engine's constructor.
        this.runner.withBean(MongoClient.class, () -> mock(MongoClient.class))
            .withBean(Materializer.class, RecordingMaterializer::new)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(MaterializerLifecycle.class);
                assertThat(context).getBean(MaterializerFactory.class).isSameAs(MaterializerFactory.DEFAULT);
                assertThat(context).hasSingleBean(MaterializerProperties.class);
            });
    }

    @Test
    void runWithMongoClientShouldStartTheEngineThroughTheFactoryOnTheApplicationsClient() {
        MongoClient client = mock(MongoClient.class);
        this.runner.withBean(MongoClient.class, () -> client).withBean(MaterializerFactory.class, () -> this.factory)
            .run(context -> {
                assertThat(context).getBean(Materializer.class)
                    .isInstanceOfSatisfying(RestartableMaterializer.class,
                            engine -> assertThat(engine.current()).isSameAs(this.factory.materializer()));
                assertThat(this.factory.creations()).isOne();
                assertThat(this.factory.client()).isSameAs(client);
                assertThat(this.factory.database()).isEqualTo("shop");
                assertThat(this.factory.materializer().calls()).containsExactly("start");
            });
    }

    @Test
    void closingTheContextShouldStopIntakeDrainForTheShutdownTimeoutAndClose() {
        withMongoClient().withPropertyValues("materializer.shutdown-timeout=7s").run(context -> {
            context.close();
            RecordingMaterializer engine = this.factory.materializer();
            assertThat(engine.calls()).containsExactly("start", "stopIntake", "drain", "close");
            assertThat(engine.drainTimeout()).isEqualTo(Duration.ofSeconds(7));
        });
    }

    @Test
    void runWhenDisabledShouldNotCreateMaterializer() {
        withMongoClient().withPropertyValues("materializer.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Materializer.class);
            assertThat(context).doesNotHaveBean(MaterializerLifecycle.class);
            assertThat(context).doesNotHaveBean(MaterializerProperties.class);
        });
    }

    @Test
    void runWhenEnabledExplicitlyShouldCreateMaterializer() {
        withMongoClient().withPropertyValues("materializer.enabled=true")
            .run(context -> assertThat(context).hasSingleBean(Materializer.class));
    }

    @Test
    void runWithoutMongoClientShouldCreateNothing() {
        this.runner.withBean(MaterializerFactory.class, () -> this.factory).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Materializer.class);
            assertThat(context).doesNotHaveBean(MaterializerLifecycle.class);
            assertThat(context).doesNotHaveBean(MaterializerHealthIndicator.class);
        });
    }

    @Test
    void runWithoutActuatorHealthAndMicrometerShouldStillStartTheEngine() {
        withMongoClient()
            .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate.", "org.springframework.boot.health.",
                    "io.micrometer."))
            .withPropertyValues("management.endpoints.web.exposure.include=materializer")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(Materializer.class);
                assertThat(context).doesNotHaveBean(MaterializerEndpoint.class);
                assertThat(context).doesNotHaveBean(MaterializerHealthIndicator.class);
                assertThat(context).doesNotHaveBean(MaterializerMeterBinder.class);
                assertThat(context).doesNotHaveBean(MaterializerMetricsListener.class);
                assertThat(this.factory.materializer().calls()).containsExactly("start");
            });
    }

    @Test
    void aUsersMaterializerBeanWinsAndIsStillStartedAndDrained() {
        RecordingMaterializer own = new RecordingMaterializer();
        withMongoClient().withBean(Materializer.class, () -> own).run(context -> {
            assertThat(context).getBean(Materializer.class).isSameAs(own);
            assertThat(this.factory.client()).as("the factory was not used").isNull();
            context.close();
            // Spring may close the user's bean again when it destroys it (AutoCloseable): the engine's close is idempotent.
            assertThat(own.calls()).startsWith("start", "stopIntake", "drain", "close");
        });
    }

    @Test
    void customizersAreAppliedInOrderAfterTheProperties() {
        withMongoClient().withUserConfiguration(OrderedCustomizers.class)
            .withPropertyValues("materializer.partition-field=fromProperties", "materializer.max-rows=50000")
            .run(context -> {
                MaterializerOptions options = this.factory.options();
                assertThat(context.getBean(OrderedCustomizers.class).seen).containsExactly("fromProperties", "first");
                assertThat(options.partitionField()).isEqualTo("second");
                assertThat(options.maxRows()).isEqualTo(50000);
            });
    }

    @Test
    void aCustomizerThatSetsAnInvalidValueFailsTheStartSayingSo() {
        withMongoClient()
            .withBean(MaterializerOptionsCustomizer.class, () -> options -> options.maxConcurrentPasses(0))
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("maxConcurrentPasses must be between 1 and 256"));
        withMongoClient()
            .withBean(MaterializerOptionsCustomizer.class, () -> options -> options.maxConcurrentPasses(0))
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("A MaterializerOptionsCustomizer set an invalid materializer option"));
    }

    @Test
    void everyMaterializerListenerBeanHearsTheEngineInOrder() {
        withMongoClient().withUserConfiguration(TwoListeners.class).run(context -> {
            this.factory.options().listener().onStateChanged(EngineState.RUNNING, null);
            assertThat(context.getBean(TwoListeners.class).heard).containsExactly("first RUNNING", "second RUNNING");
        });
    }

    @Test
    void withoutListenerBeansOfItsOwnTheEngineHearsOnlyTheSpringEventPublisher() {
        withMongoClient().run(context -> assertThat(this.factory.options().listener())
            .isSameAs(context.getBean(dev.materializer.spring.event.MaterializerEventPublisher.class)));
    }

    @Test
    void withAMeterRegistryTheMetricsListenerJoinsTheOtherListeners() {
        withMongoClient().withBean(SimpleMeterRegistry.class).withUserConfiguration(TwoListeners.class).run(context -> {
            assertThat(context).hasSingleBean(MaterializerMeterBinder.class);
            assertThat(context).hasSingleBean(MaterializerMetricsListener.class);
            MaterializerListener listener = this.factory.options().listener();
            assertThat(listener).isInstanceOf(CompositeMaterializerListener.class);
            assertThat(((CompositeMaterializerListener) listener).listeners())
                .contains(context.getBean(MaterializerMetricsListener.class), context.getBean(MaterializerLag.class),
                        context.getBean(dev.materializer.spring.event.MaterializerEventPublisher.class))
                .hasSize(5);
        });
    }

    @Test
    void withBootsMetricsAutoConfigurationTheEngineTheListenerAndTheBinderFormNoCycle() {
        withMongoClient()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class,
                    org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration.class,
                    org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration.class))
            .run(context -> {
                assertThat(context).hasNotFailed();
                io.micrometer.core.instrument.MeterRegistry registry = context
                    .getBean(io.micrometer.core.instrument.MeterRegistry.class);
                assertThat(registry.find(dev.materializer.spring.metrics.MaterializerMeters.VIEWS).gauges()).hasSize(5);
                this.factory.options().listener().onChange("orders", null);
                assertThat(registry.get(dev.materializer.spring.metrics.MaterializerMeters.CHANGES).counter().count())
                    .isEqualTo(1);
            });
    }

    @Test
    void withoutAMeterRegistryThereAreNoMeters() {
        withMongoClient().run(context -> {
            assertThat(context).doesNotHaveBean(MaterializerMeterBinder.class);
            assertThat(context).doesNotHaveBean(MaterializerMetricsListener.class);
        });
    }

    @Test
    void theEndpointExistsOnlyWhenExposedAndItsWebExtensionOnlyOverTheWeb() {
        withMongoClient().run(context -> assertThat(context).doesNotHaveBean(MaterializerEndpoint.class)
            .doesNotHaveBean(MaterializerWebEndpointExtension.class));
        withMongoClient().withPropertyValues("management.endpoints.web.exposure.include=materializer")
            .run(context -> assertThat(context).hasSingleBean(MaterializerEndpoint.class)
                .hasSingleBean(MaterializerWebEndpointExtension.class));
        withMongoClient().withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=materializer")
            .run(context -> assertThat(context).hasSingleBean(MaterializerEndpoint.class)
                .doesNotHaveBean(MaterializerWebEndpointExtension.class));
    }

    @Test
    void theOperatorPageIsServedOnlyWhenEnabledAndExposedBesideTheEndpoint() {
        String both = "management.endpoints.web.exposure.include=materializer,materializerui";
        withMongoClient().withPropertyValues(both)
            .run(context -> assertThat(context).doesNotHaveBean(MaterializerUiEndpoint.class));
        withMongoClient().withPropertyValues("materializer.ui.enabled=true", "management.endpoints.web.exposure.include=materializer")
            .run(context -> assertThat(context).doesNotHaveBean(MaterializerUiEndpoint.class));
        withMongoClient().withPropertyValues("materializer.ui.enabled=true", both)
            .run(context -> assertThat(context.getBean(MaterializerUiEndpoint.class).page())
                .contains("<title>Materializer</title>").contains("fetch("));
    }

    @Test
    void theEndpointIsAbsentWhenItsAccessIsNone() {
        withMongoClient()
            .withPropertyValues("management.endpoints.web.exposure.include=materializer",
                    "management.endpoint.materializer.access=NONE")
            .run(context -> assertThat(context).doesNotHaveBean(MaterializerEndpoint.class)
                .doesNotHaveBean(MaterializerWebEndpointExtension.class));
    }

    @Test
    void theHealthIndicatorIsOnByDefaultAndCanBeTurnedOff() {
        withMongoClient().run(context -> assertThat(context).hasSingleBean(MaterializerHealthIndicator.class)
            .hasBean("materializerHealthIndicator"));
        withMongoClient().withPropertyValues("management.health.materializer.enabled=false")
            .run(context -> assertThat(context).doesNotHaveBean(MaterializerHealthIndicator.class));
    }

    @Test
    void storageSourcesMapToIdentityOrToAPartitionMappingBeanByName() {
        PartitionMapping byRegion = storage -> "region-" + storage;
        withMongoClient().withBean("byRegion", PartitionMapping.class, () -> byRegion)
            .withPropertyValues("materializer.storage-sources.orders=identity",
                    "materializer.storage-sources[orders.archive]=byRegion")
            .run(context -> {
                assertThat(this.factory.options().storageSources()).containsOnlyKeys("orders", "orders.archive");
                assertThat(this.factory.options().storageSources().get("orders")).isSameAs(PartitionMapping.IDENTITY);
                assertThat(this.factory.options().storageSources().get("orders.archive")).isSameAs(byRegion);
            });
    }

    @Test
    void anUnknownStorageSourceMappingFailsNamingItsKey() {
        withMongoClient().withPropertyValues("materializer.storage-sources.orders=byRegion").run(context -> assertThat(context)
            .getFailure()
            .hasStackTraceContaining("materializer.storage-sources.orders must be 'identity' or the name of a PartitionMapping bean, was 'byRegion'"));
    }

    @Test
    void theContextStartsAgainAfterAStopWithANewEngineFromTheFactory() {
        withMongoClient().run(context -> {
            context.stop();
            assertThat(context.getBean(MaterializerLifecycle.class).isRunning()).isFalse();
            context.start();
            assertThat(context.getBean(MaterializerLifecycle.class).isRunning()).isTrue();
            assertThat(this.factory.creations()).isEqualTo(2);
            assertThat(this.factory.materializer().calls()).containsExactly("start", "stopIntake", "drain", "close", "start");
            context.close();
            assertThat(this.factory.materializer().calls()).endsWith("start", "stopIntake", "drain", "close");
        });
    }

    @Test
    void aUsersMaterializerBeanCannotStartAgainAfterAStopAndSaysWhy() {
        RecordingMaterializer own = new RecordingMaterializer();
        withMongoClient().withBean(Materializer.class, () -> own).run(context -> {
            MaterializerLifecycle lifecycle = context.getBean(MaterializerLifecycle.class);
            lifecycle.stop();
            assertThatIllegalStateException().isThrownBy(lifecycle::start)
                .withMessageContaining("Materializer cannot start again after it was stopped")
                .withMessageContaining("Define a MaterializerFactory bean instead of a Materializer bean");
            assertThat(own.calls()).containsExactly("start", "stopIntake", "drain", "close");
        });
    }

    @Test
    void withAutoStartupFalseTheContextDoesNotStartTheEngineAndTheApplicationCan() {
        withMongoClient().withPropertyValues("materializer.auto-startup=false").run(context -> {
            assertThat(context).hasNotFailed();
            MaterializerLifecycle lifecycle = context.getBean(MaterializerLifecycle.class);
            assertThat(lifecycle.isAutoStartup()).isFalse();
            assertThat(lifecycle.isRunning()).isFalse();
            assertThat(this.factory.materializer().calls()).isEmpty();
            lifecycle.start();
            assertThat(lifecycle.isRunning()).isTrue();
            assertThat(this.factory.materializer().calls()).containsExactly("start");
            context.close();
            assertThat(this.factory.materializer().calls()).containsExactly("start", "stopIntake", "drain", "close");
        });
    }

    @Test
    void withAutoStartupFalseTheContextsStartStartsTheEngine() {
        withMongoClient().withPropertyValues("materializer.auto-startup=false").run(context -> {
            assertThat(this.factory.materializer().calls()).isEmpty();
            context.start();
            assertThat(this.factory.materializer().calls()).containsExactly("start");
        });
    }

    @Test
    void byDefaultTheEngineStartsWithTheContext() {
        withMongoClient().run(context -> assertThat(context.getBean(MaterializerLifecycle.class).isAutoStartup()).isTrue());
    }

    @Test
    void twoClientsWithAPrimaryShouldRunTheEngineOnThePrimary() {
        MongoClient primary = mock(MongoClient.class);
        this.runner.withBean("primaryClient", MongoClient.class, () -> primary, definition -> definition.setPrimary(true))
            .withBean("otherClient", MongoClient.class, () -> mock(MongoClient.class))
            .withBean(MaterializerFactory.class, () -> this.factory)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(Materializer.class);
                assertThat(this.factory.client()).isSameAs(primary);
            });
    }

    @Test
    void twoClientsAndAClientBeanShouldRunTheEngineOnTheNamedClient() {
        MongoClient reporting = mock(MongoClient.class);
        this.runner.withBean("appClient", MongoClient.class, () -> mock(MongoClient.class), definition -> definition.setPrimary(true))
            .withBean("reportingClient", MongoClient.class, () -> reporting)
            .withBean(MaterializerFactory.class, () -> this.factory)
            .withPropertyValues("materializer.client-bean=reportingClient")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(this.factory.client()).isSameAs(reporting);
                assertThat(this.factory.materializer().calls()).containsExactly("start");
            });
    }

    @Test
    void twoClientsAndNothingSetShouldBackOffSayingWhichKeyToSet() {
        this.runner.withBean("firstClient", MongoClient.class, () -> mock(MongoClient.class))
            .withBean("secondClient", MongoClient.class, () -> mock(MongoClient.class))
            .withBean(MaterializerFactory.class, () -> this.factory)
            .withPropertyValues("management.endpoints.web.exposure.include=materializer")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(Materializer.class);
                assertThat(context).doesNotHaveBean(MaterializerLifecycle.class);
                assertThat(context).doesNotHaveBean(MaterializerEndpoint.class);
                assertThat(context).doesNotHaveBean(MaterializerHealthIndicator.class);
                assertThat(this.factory.client()).isNull();
                String report = ConditionEvaluationReport.get(context.getBeanFactory())
                    .getConditionAndOutcomesBySource()
                    .entrySet()
                    .stream()
                    .filter(entry -> entry.getKey().endsWith("MaterializerAutoConfiguration#materializer"))
                    .flatMap(entry -> StreamSupport.stream(entry.getValue().spliterator(), false))
                    .filter(outcome -> !outcome.getOutcome().isMatch())
                    .map(outcome -> outcome.getOutcome().getMessage())
                    .collect(Collectors.joining("\n"));
                assertThat(report).contains("firstClient", "secondClient")
                    .contains("set materializer.client-bean to the name of its bean, or mark one MongoClient bean @Primary");
            });
    }

    @Test
    void aClientBeanThatNamesNoClientFailsTheStartNamingTheKey() {
        this.runner.withBean("firstClient", MongoClient.class, () -> mock(MongoClient.class))
            .withBean("secondClient", MongoClient.class, () -> mock(MongoClient.class))
            .withBean(MaterializerFactory.class, () -> this.factory)
            .withPropertyValues("materializer.client-bean=thirdClient")
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("materializer.client-bean must name a MongoClient bean, was 'thirdClient'")
                .hasStackTraceContaining("firstClient, secondClient"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderedCustomizers {

        final List<String> seen = new ArrayList<>();

        // Declared second, ordered first: the order, not the declaration, decides.
        @Bean
        @Order(2)
        MaterializerOptionsCustomizer second() {
            return options -> {
                this.seen.add(options.build().partitionField());
                options.partitionField("second");
            };
        }

        @Bean
        @Order(1)
        MaterializerOptionsCustomizer first() {
            return options -> {
                this.seen.add(options.build().partitionField());
                options.partitionField("first");
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoListeners {

        final List<String> heard = new ArrayList<>();

        @Bean
        @Order(2)
        MaterializerListener secondListener() {
            return new MaterializerListener() {
                @Override
                public void onStateChanged(EngineState state, @org.jspecify.annotations.Nullable String reason) {
                    TwoListeners.this.heard.add("second " + state);
                }
            };
        }

        @Bean
        @Order(1)
        MaterializerListener firstListener() {
            return new MaterializerListener() {
                @Override
                public void onStateChanged(EngineState state, @org.jspecify.annotations.Nullable String reason) {
                    TwoListeners.this.heard.add("first " + state);
                    throw new IllegalStateException("a failing listener does not silence the next");
                }
            };
        }
    }
}
