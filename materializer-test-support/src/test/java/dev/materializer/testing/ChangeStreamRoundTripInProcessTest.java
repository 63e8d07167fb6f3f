package dev.materializer.testing;

/** The round trip on the in-process test server: always runs. */
@MongoTest(MongoKind.IN_PROCESS)
class ChangeStreamRoundTripInProcessTest extends ChangeStreamRoundTripContract {
}
