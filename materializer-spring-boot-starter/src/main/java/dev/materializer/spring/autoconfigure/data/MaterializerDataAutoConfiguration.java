package dev.materializer.spring.autoconfigure.data;

import dev.materializer.core.Materializer;
import dev.materializer.spring.autoconfigure.MaterializerProperties;
import dev.materializer.spring.data.MaterializedViews;
import dev.materializer.spring.data.ReactiveMaterializedViews;
import dev.materializer.spring.data.ViewNaming;
import dev.materializer.spring.data.ViewTemplate;
import dev.materializer.spring.data.ViewTemplates;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.mongodb.core.MongoOperations;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * With Spring Data MongoDB on the classpath and a {@link MongoOperations} bean (Boot's
 * {@code MongoTemplate}): a {@link MaterializedViews} reader, and a {@link ViewTemplates} installer
 * of every {@link ViewTemplate} bean, checked when created (a bad template fails the context, naming
 * its bean) and applied again at startup to the tenants that already have its view. The views
 * collection, partition and status fields are the engine's: {@code materializer.views-collection},
 * {@code materializer.partition-field}, {@code materializer.status-field}. With Reactor on the
 * classpath too, a {@link ReactiveMaterializedViews}: a view's changes as a {@code Flux}. Nothing with
 * {@code materializer.enabled=false}: no reader, no installer, so nothing writes view documents that
 * no engine would run.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration")
@ConditionalOnClass(MongoTemplate.class)
@ConditionalOnBean(MongoOperations.class)
@ConditionalOnBooleanProperty(name = MaterializerProperties.ENABLED, matchIfMissing = true)
@EnableConfigurationProperties(MaterializerProperties.class)
public final class MaterializerDataAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MaterializedViews materializedViews(MongoOperations mongo, MaterializerProperties properties,
            ObjectProvider<Materializer> engine) {
        return new MaterializedViews(mongo, naming(properties), engine::getIfAvailable);
    }

    @Bean
    @ConditionalOnMissingBean
    ViewTemplates viewTemplates(MongoOperations mongo, MaterializerProperties properties,
            ListableBeanFactory beanFactory) {
        return new ViewTemplates(mongo, naming(properties), beanFactory.getBeansOfType(ViewTemplate.class));
    }

    /** After every singleton is created, before the engine starts: changed templates reach their tenants. */
    @Bean
    static SmartInitializingSingleton viewTemplatesReapply(ListableBeanFactory beanFactory) {
        return () -> beanFactory.getBeanProvider(ViewTemplates.class).ifAvailable(ViewTemplates::reapply);
    }

    /** With Reactor on the classpath: a view's changes as a {@code Flux}. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "reactor.core.publisher.Flux")
    static final class ReactiveChanges {

        @Bean
        @ConditionalOnMissingBean
        ReactiveMaterializedViews reactiveMaterializedViews(MaterializedViews views) {
            return new ReactiveMaterializedViews(views);
        }
    }

    private static ViewNaming naming(MaterializerProperties properties) {
        return new ViewNaming(properties.getViewsCollection(), properties.getPartitionField(),
                properties.getStatusField());
    }
}
