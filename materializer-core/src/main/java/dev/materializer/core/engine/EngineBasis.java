package dev.materializer.core.engine;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.EngineClock;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.subscribe.ViewSubscriptions;

/**
 * What the facade holds for the whole life of the engine and hands to each running engine it
 * builds: a start that fails and tries again builds a new running engine on the same basis.
 * @param client the application's client
 * @param database the database of the views, sources and targets, with the engine's concerns
 * @param options the options
 * @param clock the clock of every timer
 * @param listener the application's listener, which never throws into the engine
 * @param lifecycle the engine's state
 * @param subscriptions the live views' subscriptions, which outlive a failed start
 * @param handOvers the gate every stream's events pass (a seam for tests)
 */
record EngineBasis(MongoClient client, MongoDatabase database, MaterializerOptions options, EngineClock clock,
        MaterializerListener listener, EngineLifecycle lifecycle, ViewSubscriptions subscriptions,
        HandOverGate handOvers) {
}
