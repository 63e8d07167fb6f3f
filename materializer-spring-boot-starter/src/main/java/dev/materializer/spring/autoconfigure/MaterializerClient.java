package dev.materializer.spring.autoconfigure;

import java.util.Arrays;

import com.mongodb.client.MongoClient;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Chooses the {@link MongoClient} of the engine: the bean named by {@code materializer.client-bean},
 * else the single candidate (the only client, or the {@code @Primary} one).
 */
final class MaterializerClient {

    static final String KEY = MaterializerProperties.PREFIX + ".client-bean";

    private MaterializerClient() {
    }

    static MongoClient resolve(MaterializerProperties properties, ObjectProvider<MongoClient> clients,
            ListableBeanFactory beanFactory) {
        String name = properties.getClientBean();
        if (name == null) {
            // The condition let the engine through: there is a single candidate.
            return clients.getObject();
        }
        String[] candidates = BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, MongoClient.class);
        if (name.isBlank() || !Arrays.asList(candidates).contains(name)) {
            throw new InvalidConfigurationPropertyValueException(KEY, name,
                    KEY + " must name a MongoClient bean, was '" + name + "'; the MongoClient beans are "
                            + Arrays.toString(candidates));
        }
        try {
            return beanFactory.getBean(name, MongoClient.class);
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw new InvalidConfigurationPropertyValueException(KEY, name,
                    KEY + " must name a MongoClient bean, was '" + name + "': " + ex.getMessage());
        }
    }
}
