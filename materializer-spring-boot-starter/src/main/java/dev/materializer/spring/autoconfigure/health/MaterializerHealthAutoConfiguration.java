package dev.materializer.spring.autoconfigure.health;

import dev.materializer.core.Materializer;
import dev.materializer.spring.autoconfigure.MaterializerAutoConfiguration;
import dev.materializer.spring.health.MaterializerHealthIndicator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The health component {@code materializer}, when Spring Boot's health module is on the class path
 * and {@code management.health.materializer.enabled} is not false.
 */
@AutoConfiguration(after = MaterializerAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(Materializer.class)
public final class MaterializerHealthAutoConfiguration {

    // On the method rather than the class: a class-level condition's class is loaded before the class
    // guard above is evaluated, which fails without the health module.
    @Bean
    @ConditionalOnMissingBean(name = "materializerHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("materializer")
    MaterializerHealthIndicator materializerHealthIndicator(Materializer materializer) {
        return new MaterializerHealthIndicator(materializer);
    }
}
