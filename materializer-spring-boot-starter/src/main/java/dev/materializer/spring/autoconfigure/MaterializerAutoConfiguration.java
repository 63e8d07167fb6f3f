package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.Map;

import com.mongodb.client.MongoClient;
import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PartitionMapping;
import dev.materializer.spring.autoconfigure.diagnostics.UnknownMaterializerKeys;
import dev.materializer.spring.event.MaterializerEventPublisher;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.mongodb.autoconfigure.MongoConnectionDetails;
import org.springframework.boot.mongodb.autoconfigure.MongoProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Runs the materializer on the application's {@link MongoClient} (the bean named by
 * {@code materializer.client-bean}, else the single candidate: the only client or the
 * {@code @Primary} one; with several and no {@code @Primary} the engine backs off, and the condition
 * report names {@code materializer.client-bean}): binds {@code materializer.*},
 * builds the engine's options (properties, then every {@link MaterializerListener} bean as one
 * listener, among them a {@code MaterializerEventPublisher} of Spring events, then every
 * {@link MaterializerOptionsCustomizer} in order), creates the engine through
 * the {@link MaterializerFactory} (behind a {@code Materializer} bean that, when the context starts
 * again after a stop, delegates to a new engine from the factory) and hands it to a {@link MaterializerLifecycle} that starts (unless
 * {@code materializer.auto-startup=false}) and drains it with the context (warning at startup when {@code materializer.shutdown-timeout} is not
 * below {@code spring.lifecycle.timeout-per-shutdown-phase}). Nothing is created without a {@code MongoClient} bean or with
 * {@code materializer.enabled=false}.
 */
@AutoConfiguration(afterName = "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration")
@ConditionalOnClass(MongoClient.class)
@ConditionalOnBean(MongoClient.class)
@ConditionalOnBooleanProperty(name = MaterializerProperties.ENABLED, matchIfMissing = true)
@EnableConfigurationProperties(MaterializerProperties.class)
public final class MaterializerAutoConfiguration {

    /** Warns of materializer.* keys that nothing reads, naming the nearest real one. */
    @Bean
    static UnknownMaterializerKeys materializerUnknownKeys(Environment environment) {
        return new UnknownMaterializerKeys(environment);
    }

    /** The engine's events as Spring events, for @EventListener methods; one of the engine's listeners. */
    @Bean
    @ConditionalOnMissingBean
    MaterializerEventPublisher materializerEventPublisher(ApplicationEventPublisher publisher) {
        return new MaterializerEventPublisher(publisher);
    }

    @Bean
    @ConditionalOnMissingBean
    MaterializerFactory materializerFactory() {
        return MaterializerFactory.DEFAULT;
    }

    // The lifecycle closes the engine, after draining it; no destroy method of its own.
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    @Conditional(OnMaterializerClientCondition.class)
    Materializer materializer(ObjectProvider<MongoClient> mongoClients, MaterializerProperties properties,
            MaterializerFactory factory,
            ObjectProvider<MaterializerListener> listeners, ObjectProvider<MaterializerOptionsCustomizer> customizers,
            ObjectProvider<MongoProperties> mongoProperties, ObjectProvider<MongoConnectionDetails> connectionDetails,
            ListableBeanFactory beanFactory) {
        MaterializerOptions.Builder builder = new MaterializerOptionsMapping(properties,
                name -> partitionMappingBeans(beanFactory).get(name)).builder();
        builder.listener(CompositeMaterializerListener.of(listeners.orderedStream().toList()));
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        MaterializerOptions options = buildCustomized(builder);
        String database = MaterializerDatabase.resolve(properties, mongoProperties.getIfAvailable(),
                connectionDetails.getIfAvailable());
        MongoClient client = MaterializerClient.resolve(properties, mongoClients, beanFactory);
        // An engine does not start again after its close: each start after a stop gets a new one.
        return new RestartableMaterializer(() -> factory.create(client, database, options));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(Materializer.class)
    MaterializerLifecycle materializerLifecycle(Materializer materializer, MaterializerProperties properties,
            Environment environment) {
        // Checked here too: with a user's engine the options (and their checks) are not built.
        Duration shutdownTimeout = MaterializerOptionsMapping.requireShutdownTimeout(properties.getShutdownTimeout());
        ShutdownTimeouts.warnIfNotBelow(shutdownTimeout, ShutdownTimeouts.phaseTimeout(environment));
        return new MaterializerLifecycle(materializer, shutdownTimeout, properties.isAutoStartup());
    }

    private static Map<String, PartitionMapping> partitionMappingBeans(ListableBeanFactory beanFactory) {
        return beanFactory.getBeansOfType(PartitionMapping.class);
    }

    private static MaterializerOptions buildCustomized(MaterializerOptions.Builder builder) {
        try {
            return builder.build();
        }
        catch (IllegalArgumentException ex) {
            // The properties were checked before: a customizer set this value.
            throw new IllegalArgumentException(
                    "A MaterializerOptionsCustomizer set an invalid materializer option: " + ex.getMessage(), ex);
        }
    }
}
