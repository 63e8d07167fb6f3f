package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Writes in groups on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class GenerationalWriteInProcessTest extends GenerationalWriteContract {
}
