/**
 * The in-process MongoDB test server: mongo-java-server's in-memory backend, extended through its
 * backend, database, collection and oplog classes to answer as MongoDB does where the Materializer
 * reads it. Start one with {@link dev.materializer.testing.server.InProcessMongoServer}.
 * docs/compatibility.md lists what it does and does not do.
 */
@NullMarked
package dev.materializer.testing.server;

import org.jspecify.annotations.NullMarked;
