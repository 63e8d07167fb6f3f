package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The key-scoped pass property on a real replica set: small diffs are written in one transaction. */
@MongoTest(MongoKind.REPLICA_SET)
class KeyScopedPassPropertyReplicaSetTest extends KeyScopedPassPropertyContract {
}
