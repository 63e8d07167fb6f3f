package dev.materializer.core.guard;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Guarded pipelines on a real replica set: runs where MONGODB_URI or Docker gives one. */
@MongoTest(MongoKind.REPLICA_SET)
class ScopedPipelineReplicaSetTest extends ScopedPipelineContract {
}
