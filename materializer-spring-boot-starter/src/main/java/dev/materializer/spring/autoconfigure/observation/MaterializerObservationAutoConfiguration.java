package dev.materializer.spring.autoconfigure.observation;

import dev.materializer.core.Materializer;
import dev.materializer.spring.autoconfigure.MaterializerAutoConfiguration;
import dev.materializer.spring.observation.MaterializerObservationListener;
import dev.materializer.spring.observation.PassObservationConvention;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.function.SingletonSupplier;

/**
 * An observation of each pass, when Micrometer's Observation API is on the class path and the
 * application has an {@link ObservationRegistry} bean (Boot makes one with the actuator): a
 * {@link MaterializerObservationListener}, which the engine hears with its other listeners. The
 * registry is read at the first pass, as Boot configures it with handlers that may need beans
 * built after the engine.
 */
@AutoConfiguration(after = MaterializerAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, Materializer.class })
public final class MaterializerObservationAutoConfiguration {

    // The convention is the user's bean, if any; else the registry's global one, else the default.
    @Bean
    @ConditionalOnMissingBean
    MaterializerObservationListener materializerObservationListener(ObjectProvider<ObservationRegistry> registry,
            ObjectProvider<PassObservationConvention> convention) {
        return new MaterializerObservationListener(
                SingletonSupplier.of(() -> registry.getIfAvailable(() -> ObservationRegistry.NOOP)),
                convention.getIfAvailable());
    }
}
