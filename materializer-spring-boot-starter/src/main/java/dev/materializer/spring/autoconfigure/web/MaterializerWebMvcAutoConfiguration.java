package dev.materializer.spring.autoconfigure.web;

import dev.materializer.spring.autoconfigure.MaterializerProperties;
import dev.materializer.spring.data.MaterializedViewNotFoundException;
import dev.materializer.spring.web.MaterializedViewProblemAdvice;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * In a servlet web application with Spring Data MongoDB: a {@link MaterializedViewNotFoundException}
 * out of a controller answers 404 with a problem detail ({@link MaterializedViewProblemAdvice}).
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty(name = MaterializerProperties.ENABLED, matchIfMissing = true)
@ConditionalOnClass({ DispatcherServlet.class, MaterializedViewNotFoundException.class,
        org.springframework.dao.DataRetrievalFailureException.class })
public final class MaterializerWebMvcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MaterializedViewProblemAdvice materializedViewProblemAdvice() {
        return new MaterializedViewProblemAdvice();
    }
}
