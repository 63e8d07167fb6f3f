package dev.materializer.spring.autoconfigure.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.mongodb.client.MongoClient;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import dev.materializer.spring.autoconfigure.MaterializerAutoConfiguration;
import dev.materializer.spring.autoconfigure.MaterializerFactory;
import dev.materializer.spring.autoconfigure.metrics.MaterializerMetricsAutoConfiguration;
import dev.materializer.spring.metrics.MaterializerMeters;
import dev.materializer.spring.observation.MaterializerObservationListener;
import dev.materializer.spring.observation.DefaultPassObservationConvention;
import dev.materializer.spring.observation.PassObservationContext;
import dev.materializer.spring.observation.PassObservationConvention;
import dev.materializer.spring.testing.RecordingMaterializerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/** The observation of passes exists only with an ObservationRegistry, and the engine hears it. */
class MaterializerObservationAutoConfigurationTests {

    private final RecordingMaterializerFactory factory = new RecordingMaterializerFactory();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MaterializerAutoConfiguration.class,
                MaterializerObservationAutoConfiguration.class))
        .withPropertyValues("materializer.database=shop")
        .withBean(MongoClient.class, () -> mock(MongoClient.class))
        .withBean(MaterializerFactory.class, () -> this.factory);

    private final ViewKey view = new ViewKey("acme", "totals");

    @Test
    void withoutAnObservationRegistryThereIsNoObservation() {
        this.runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(MaterializerObservationListener.class);
        });
    }

    @Test
    void withoutTheObservationApiThereIsNoObservation() {
        this.runner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
            .run(context -> assertThat(context).doesNotHaveBean(MaterializerObservationListener.class));
    }

    @Test
    void withAnObservationRegistryTheEngineHearsTheObservationListenerAndEachPassIsObserved() {
        List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        this.runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasSingleBean(MaterializerObservationListener.class);
            pass(this.factory.options().listener());
            assertThat(stopped).singleElement()
                .satisfies(observed -> assertThat(observed.getName()).isEqualTo(DefaultPassObservationConvention.NAME));
        });
    }

    @Test
    void aConventionBeanReplacesTheDefaultAndAGlobalOneReplacesItWhereNoBeanDoes() {
        List<String> names = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                names.add(context.getName());
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        registry.observationConfig().observationConvention(new io.micrometer.observation.GlobalObservationConvention<PassObservationContext>() {
            @Override
            public String getName() {
                return "global.pass";
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof PassObservationContext;
            }
        });
        this.runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            pass(this.factory.options().listener());
            assertThat(names).as("the global convention, as no bean names one").containsExactly("global.pass");
        });
        names.clear();
        this.runner.withBean(ObservationRegistry.class, () -> registry)
            .withBean(PassObservationConvention.class, () -> new DefaultPassObservationConvention() {
                @Override
                public String getName() {
                    return "shop.pass";
                }
            })
            .run(context -> {
                pass(this.factory.options().listener());
                assertThat(names).as("the bean's convention").containsExactly("shop.pass");
            });
    }

    @Test
    void withBootsObservationAndMetricsEachPassIsTimedOnceByTheObservation() {
        this.runner
            .withConfiguration(AutoConfigurations.of(MaterializerMetricsAutoConfiguration.class,
                    org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration.class,
                    org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class,
                    org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration.class,
                    org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration.class))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(MaterializerObservationListener.class);
                pass(this.factory.options().listener());
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(meters.get(MaterializerMeters.PASS).timers()).as("one timer, of the one pass")
                    .singleElement()
                    .satisfies(timer -> {
                        assertThat(timer.count()).isEqualTo(1);
                        assertThat(timer.getId().getTags()).extracting(io.micrometer.core.instrument.Tag::getKey)
                            .containsExactlyInAnyOrder("outcome", "mode", "scope", "error");
                        assertThat(timer.getId().getTag("outcome")).isEqualTo("changed");
                    });
                assertThat(meters.find("materializer.view.pass").timers()).as("no second timer of passes").isEmpty();
            });
    }

    private void pass(MaterializerListener listener) {
        listener.onPassStarted(this.view);
        listener.onPassFinished(new PassReport(this.view, WriteMode.GENERATION, PassOutcome.CHANGED, 1, 0,
                Duration.ofMillis(5), null));
    }
}
