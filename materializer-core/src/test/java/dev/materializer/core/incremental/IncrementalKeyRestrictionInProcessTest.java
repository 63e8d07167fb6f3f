package dev.materializer.core.incremental;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Restricted pipelines on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class IncrementalKeyRestrictionInProcessTest extends IncrementalKeyRestrictionContract {
}
