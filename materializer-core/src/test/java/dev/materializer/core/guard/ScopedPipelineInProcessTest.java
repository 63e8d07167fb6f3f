package dev.materializer.core.guard;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Guarded pipelines on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class ScopedPipelineInProcessTest extends ScopedPipelineContract {
}
