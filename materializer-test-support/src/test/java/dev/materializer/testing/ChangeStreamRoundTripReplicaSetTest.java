package dev.materializer.testing;

/** The round trip on a real replica set: runs where MONGODB_URI or Docker gives one. */
@MongoTest(MongoKind.REPLICA_SET)
class ChangeStreamRoundTripReplicaSetTest extends ChangeStreamRoundTripContract {
}
