package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The lifecycle of views over views, on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class ViewLifecycleInProcessTest extends ViewLifecycleContract {
}
