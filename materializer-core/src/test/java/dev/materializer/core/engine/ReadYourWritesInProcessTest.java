package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Read-your-writes on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class ReadYourWritesInProcessTest extends ReadYourWritesContract {
}
