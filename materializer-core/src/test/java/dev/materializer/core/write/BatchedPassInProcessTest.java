package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Batched passes on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class BatchedPassInProcessTest extends BatchedPassContract {
}
