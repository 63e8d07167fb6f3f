/**
 * The Materializer engine: live materialized views for MongoDB, with the MongoDB sync driver only.
 *
 * <p>It exports its API ({@code dev.materializer.core}: the facade, its options, listener, snapshots,
 * states and the types an application names) and the runtime's public types
 * ({@code dev.materializer.core.engine}: the facade's implementation {@code ViewMaterializer}, the
 * check of a view document, the diagnostics hook of the benchmarks). Every other package is the
 * engine's own and may change in any version.
 */
module dev.materializer.core {
    requires transitive org.mongodb.driver.sync.client;
    requires transitive org.mongodb.driver.core;
    requires transitive org.mongodb.bson;
    requires org.slf4j;
    requires static transitive org.jspecify;

    exports dev.materializer.core;
    exports dev.materializer.core.engine;
}
