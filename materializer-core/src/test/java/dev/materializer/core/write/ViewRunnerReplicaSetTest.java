package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Runs of views on a real replica set, where small views are written in one transaction. */
@MongoTest(MongoKind.REPLICA_SET)
class ViewRunnerReplicaSetTest extends ViewRunnerContract {
}
