package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The sequences that once lost changes, on a real replica set where one is available. */
@MongoTest(MongoKind.REPLICA_SET)
class NeverLoseAChangeReplicaSetTest extends NeverLoseAChangeContract {
}
