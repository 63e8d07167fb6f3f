package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Views registered while a stream runs, on a real replica set, where one is available. */
@MongoTest(MongoKind.REPLICA_SET)
class LateViewReplicaSetTest extends LateViewContract {
}
