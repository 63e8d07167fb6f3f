package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The reconciler on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class ReconcileInProcessTest extends ReconcileContract {
}
