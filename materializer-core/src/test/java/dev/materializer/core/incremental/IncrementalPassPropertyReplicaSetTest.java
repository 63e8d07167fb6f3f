package dev.materializer.core.incremental;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The incremental pass property on a real replica set, with arrays in every kind of key. */
@MongoTest(MongoKind.REPLICA_SET)
class IncrementalPassPropertyReplicaSetTest extends IncrementalPassPropertyContract {
}
