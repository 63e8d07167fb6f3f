package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Views registered while a stream runs, on the in-process server, whose streams are projected. */
@MongoTest(MongoKind.IN_PROCESS)
class LateViewInProcessTest extends LateViewContract {
}
