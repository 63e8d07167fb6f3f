package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Row versions in groups on a real replica set, as a deployment without transactions would. */
@MongoTest(MongoKind.REPLICA_SET)
class VersionedWriteReplicaSetTest extends VersionedWriteContract {
}
