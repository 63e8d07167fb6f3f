package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The engine's scenarios on a real replica set (transactional path), where one is available. */
@MongoTest(MongoKind.REPLICA_SET)
class MaterializerReplicaSetTest extends MaterializerContract {
}
