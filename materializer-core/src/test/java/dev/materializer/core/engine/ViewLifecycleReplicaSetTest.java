package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The lifecycle of views over views, on a real replica set where one is available. */
@MongoTest(MongoKind.REPLICA_SET)
class ViewLifecycleReplicaSetTest extends ViewLifecycleContract {
}
