package dev.materializer.core.engine;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

/** The engine's scenarios on the in-process test server (generation path: it has no transactions). */
@MongoTest(MongoKind.IN_PROCESS)
class MaterializerInProcessTest extends MaterializerScenarios {
}
