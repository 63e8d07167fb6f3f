package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The engine's concerns on a real replica set, where a secondaryPreferred client must still find transactions. */
@MongoTest(MongoKind.REPLICA_SET)
class ClientDefaultsReplicaSetTest extends ClientDefaultsContract {
}
