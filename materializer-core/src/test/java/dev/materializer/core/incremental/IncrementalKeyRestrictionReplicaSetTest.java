package dev.materializer.core.incremental;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Restricted pipelines on a real replica set, whose $group semantics the package models. */
@MongoTest(MongoKind.REPLICA_SET)
class IncrementalKeyRestrictionReplicaSetTest extends IncrementalKeyRestrictionContract {
}
