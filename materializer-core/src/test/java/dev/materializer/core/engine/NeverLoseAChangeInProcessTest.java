package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The sequences that once lost changes, on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class NeverLoseAChangeInProcessTest extends NeverLoseAChangeContract {
}
