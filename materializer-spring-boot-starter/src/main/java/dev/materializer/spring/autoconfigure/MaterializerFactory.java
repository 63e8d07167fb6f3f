package dev.materializer.spring.autoconfigure;

import com.mongodb.client.MongoClient;
import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.engine.ViewMaterializer;

/**
 * Creates the engine from the application's client, the resolved database and the options built
 * from the properties, listeners and customizers. The default creates a {@link ViewMaterializer};
 * define a bean of this type to wrap or replace the engine while keeping the starter's options and
 * lifecycle. The factory is called once at startup and again on each start after a stop (an engine
 * does not start again after its close); the {@code Materializer} bean delegates to the newest
 * engine. To replace everything, define a {@link Materializer} bean instead (it cannot start again
 * after a stop).
 */
@FunctionalInterface
public interface MaterializerFactory {

    /** The default: a {@link ViewMaterializer}. */
    MaterializerFactory DEFAULT = ViewMaterializer::new;

    /**
     * Creates a new engine; it must not start before {@link Materializer#start()}.
     * @param client the application's MongoDB client
     * @param database the database of the views, sources and targets
     * @param options the checked options
     * @return the engine
     */
    Materializer create(MongoClient client, String database, MaterializerOptions options);
}
