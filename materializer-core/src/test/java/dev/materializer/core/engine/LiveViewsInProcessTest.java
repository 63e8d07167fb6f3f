package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Subscriptions on the in-process test server (views written in groups: it has no transactions). */
@MongoTest(MongoKind.IN_PROCESS)
class LiveViewsInProcessTest extends LiveViewsContract {
}
