package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The engine's concerns on the in-process test server (no transactions there, as with a primary client). */
@MongoTest(MongoKind.IN_PROCESS)
class ClientDefaultsInProcessTest extends ClientDefaultsContract {
}
