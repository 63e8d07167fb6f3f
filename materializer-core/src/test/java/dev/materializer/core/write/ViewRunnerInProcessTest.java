package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Runs of views on the in-process test server: no transactions, so every write is a new generation. */
@MongoTest(MongoKind.IN_PROCESS)
class ViewRunnerInProcessTest extends ViewRunnerContract {
}
