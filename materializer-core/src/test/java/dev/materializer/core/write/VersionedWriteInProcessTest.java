package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** Row versions in groups on the in-process test server. */
@MongoTest(MongoKind.IN_PROCESS)
class VersionedWriteInProcessTest extends VersionedWriteContract {
}
