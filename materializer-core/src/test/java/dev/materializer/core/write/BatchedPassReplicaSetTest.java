package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Batched passes on a real replica set (skipped without Docker). */
@MongoTest(MongoKind.REPLICA_SET)
class BatchedPassReplicaSetTest extends BatchedPassContract {
}
