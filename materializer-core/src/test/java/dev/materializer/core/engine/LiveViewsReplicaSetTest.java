package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Subscriptions on a real replica set (views written in one transaction), where one is available. */
@MongoTest(MongoKind.REPLICA_SET)
class LiveViewsReplicaSetTest extends LiveViewsContract {
}
