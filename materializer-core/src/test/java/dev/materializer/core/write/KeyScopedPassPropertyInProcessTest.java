package dev.materializer.core.write;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The key-scoped pass property on the in-process test server: passes write new generations in groups. */
@MongoTest(MongoKind.IN_PROCESS)
class KeyScopedPassPropertyInProcessTest extends KeyScopedPassPropertyContract {
}
