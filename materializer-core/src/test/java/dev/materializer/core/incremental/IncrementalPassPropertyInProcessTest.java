package dev.materializer.core.incremental;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The incremental pass property on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class IncrementalPassPropertyInProcessTest extends IncrementalPassPropertyContract {
}
