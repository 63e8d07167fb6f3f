package dev.materializer.testing;

/** The in-process server's extensions on itself: always runs. */
@MongoTest(MongoKind.IN_PROCESS)
class InProcessServerInProcessTest extends InProcessServerContract {
}
