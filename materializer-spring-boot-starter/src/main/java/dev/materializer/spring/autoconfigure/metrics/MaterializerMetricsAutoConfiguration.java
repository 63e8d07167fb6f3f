package dev.materializer.spring.autoconfigure.metrics;

import dev.materializer.core.Materializer;
import dev.materializer.spring.autoconfigure.MaterializerAutoConfiguration;
import dev.materializer.spring.metrics.MaterializerLag;
import dev.materializer.spring.metrics.MaterializerMeterBinder;
import dev.materializer.spring.metrics.MaterializerMetricsListener;
import dev.materializer.spring.observation.MaterializerObservationListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * The materializer's meters, when Micrometer is on the class path and the application has a
 * {@link MeterRegistry}: a {@link MaterializerMeterBinder} for the gauges, and a
 * {@link MaterializerMetricsListener} for the counters and the timer of passes (unless an observation
 * of each pass makes that timer) and a {@link MaterializerLag}
 * for the lag, which the engine hears together with every other {@code MaterializerListener} bean. Boot binds every
 * {@code MeterBinder} bean once all singletons exist, so the engine (which needs the listener, which
 * needs the registry) and the binder (which needs the engine) do not form a cycle.
 */
@AutoConfiguration(after = MaterializerAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, Materializer.class })
public final class MaterializerMetricsAutoConfiguration {

    // The listeners reach the engine lazily: the engine is built with them.
    @Bean
    @ConditionalOnMissingBean
    MaterializerMetricsListener materializerMetricsListener(MeterRegistry meterRegistry,
            ObjectProvider<Materializer> materializer, ListableBeanFactory beanFactory) {
        // With an observation of each pass, Boot's meter handler makes the timer: one per pass.
        return new MaterializerMetricsListener(meterRegistry, SingletonSupplier.of(materializer::getIfAvailable),
                !passesObserved(beanFactory));
    }

    private static boolean passesObserved(ListableBeanFactory beanFactory) {
        // The class is read only when the Observation API, which it needs, is there.
        return ClassUtils.isPresent(OBSERVATION_API, MaterializerMetricsAutoConfiguration.class.getClassLoader())
                && beanFactory.getBeanNamesForType(MaterializerObservationListener.class, false, false).length > 0;
    }

    private static final String OBSERVATION_API = "io.micrometer.observation.ObservationRegistry";

    @Bean
    @ConditionalOnMissingBean
    MaterializerLag materializerLag(ObjectProvider<Materializer> materializer) {
        return new MaterializerLag(SingletonSupplier.of(materializer::getIfAvailable));
    }

    @Bean
    @ConditionalOnMissingBean
    MaterializerMeterBinder materializerMeterBinder(Materializer materializer, MaterializerLag materializerLag) {
        return new MaterializerMeterBinder(materializer, materializerLag);
    }
}
