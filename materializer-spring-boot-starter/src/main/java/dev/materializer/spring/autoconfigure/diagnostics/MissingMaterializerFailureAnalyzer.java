package dev.materializer.spring.autoconfigure.diagnostics;

import com.mongodb.client.MongoClient;
import dev.materializer.spring.autoconfigure.MaterializerProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * A bean of the application needs one of the starter's ({@code Materializer}, {@code MaterializedViews},
 * {@code ViewTemplates}, ...) and the starter created none: says why in the starter's terms (the
 * starter is off, there is no {@code MongoClient}, several and none chosen, or no Spring Data
 * {@code MongoTemplate} for the reader), ahead of Boot's generic analysis of a missing bean. Any
 * other missing bean is left to Boot.
 */
final class MissingMaterializerFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
        implements Ordered {

    private static final String PACKAGE = "dev.materializer.";

    private final @Nullable BeanFactory beanFactory;

    private final @Nullable Environment environment;

    /**
     * @param beanFactory the context's bean factory, when the context was created
     * @param environment the context's environment, when the context was created
     */
    MissingMaterializerFailureAnalyzer(@Nullable BeanFactory beanFactory, @Nullable Environment environment) {
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        // Before Boot's analyzer of a missing bean, which would answer first and more vaguely.
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
        Class<?> type = cause.getResolvableType() != null ? cause.getResolvableType().resolve() : cause.getBeanType();
        if (type == null || !type.getName().startsWith(PACKAGE)) {
            return null;
        }
        String needed = "A bean of the application needs a " + type.getSimpleName() + ", which the materializer "
                + "starter did not create: ";
        if (this.environment != null
                && "false".equalsIgnoreCase(this.environment.getProperty(MaterializerProperties.ENABLED))) {
            return new FailureAnalysis(needed + MaterializerProperties.ENABLED + " is false, so the starter creates nothing.",
                    "Remove " + MaterializerProperties.ENABLED + "=false, or create the beans that need the "
                            + type.getSimpleName() + " only when the materializer is enabled "
                            + "(@ConditionalOnBooleanProperty(\"" + MaterializerProperties.ENABLED + "\")).",
                    cause);
        }
        int clients = clients();
        if (clients == 0) {
            return new FailureAnalysis(needed + "there is no MongoClient bean, and the materializer runs on the "
                    + "application's MongoClient.",
                    "Add spring-boot-starter-data-mongodb (Boot then creates a MongoClient from spring.mongodb.uri), "
                            + "or define a MongoClient bean. To run without a MongoDB server during development, "
                            + "see docs/quick-start.md, \"Run it without MongoDB\".",
                    cause);
        }
        if (clients > 1 && this.environment != null
                && this.environment.getProperty(MaterializerProperties.PREFIX + ".client-bean") == null) {
            return new FailureAnalysis(needed + "there are " + clients + " MongoClient beans and none is chosen.",
                    "Set " + MaterializerProperties.PREFIX + ".client-bean to the name of the MongoClient bean the "
                            + "materializer uses, or mark one MongoClient bean @Primary.",
                    cause);
        }
        if (!type.getSimpleName().equals("Materializer")) {
            return new FailureAnalysis(needed + "the " + type.getSimpleName() + " needs Spring Data MongoDB and a "
                    + "MongoTemplate bean, and there is none.",
                    "Add spring-boot-starter-data-mongodb, which brings Spring Data MongoDB and creates the "
                            + "MongoTemplate.",
                    cause);
        }
        return null;
    }

    private int clients() {
        if (this.beanFactory instanceof ListableBeanFactory listable) {
            return listable.getBeanNamesForType(MongoClient.class, true, false).length;
        }
        return 0;
    }
}
