package dev.materializer.testing;

/** The same assertions on a real replica set: runs where MONGODB_URI or Docker gives one. */
@MongoTest(MongoKind.REPLICA_SET)
class InProcessServerReplicaSetTest extends InProcessServerContract {
}
