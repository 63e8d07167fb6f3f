package dev.materializer.sample;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** The shop's shared beans. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ShopProperties.class)
class ShopConfiguration {

    @Bean
    MaterializerFields materializerFields(Environment environment) {
        return MaterializerFields.from(environment);
    }
}
