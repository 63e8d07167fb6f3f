package dev.materializer.spring.autoconfigure.endpoint;

import dev.materializer.core.Materializer;
import dev.materializer.spring.autoconfigure.MaterializerAutoConfiguration;
import dev.materializer.spring.endpoint.MaterializerEndpoint;
import dev.materializer.spring.endpoint.MaterializerUiEndpoint;
import dev.materializer.spring.endpoint.MaterializerWebEndpointExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * The {@code materializer} actuator endpoint, when actuator is on the class path, the engine runs
 * and the endpoint is available (exposed, e.g. {@code management.endpoints.web.exposure.include=materializer},
 * and its access not {@code none}); and its web extension, which answers 404 for an unknown view on
 * write too, when it is exposed over the web; and, with {@code materializer.ui.enabled=true} and
 * exposed too, the operator page ({@link MaterializerUiEndpoint}).
 */
@AutoConfiguration(after = MaterializerAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnBean(Materializer.class)
@ImportRuntimeHints(MaterializerEndpointRuntimeHints.class)
public final class MaterializerEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    MaterializerEndpoint materializerEndpoint(Materializer materializer) {
        return new MaterializerEndpoint(materializer);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(MaterializerEndpoint.class)
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    MaterializerWebEndpointExtension materializerWebEndpointExtension(MaterializerEndpoint endpoint) {
        return new MaterializerWebEndpointExtension(endpoint);
    }

    /** The operator page, opt-in, beside the endpoint whose JSON it shows. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "materializer.ui.enabled", havingValue = "true")
    @ConditionalOnBean(MaterializerEndpoint.class)
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    MaterializerUiEndpoint materializerUiEndpoint() {
        return new MaterializerUiEndpoint();
    }
}
