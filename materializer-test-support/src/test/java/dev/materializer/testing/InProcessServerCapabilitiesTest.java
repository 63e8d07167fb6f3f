package dev.materializer.testing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the deviations of the in-process test server (docs/compatibility.md lists them), as the probe measures
 * them: if a new version of the server gains one, this test says so and the skips can go.
 */
@MongoTest(MongoKind.IN_PROCESS)
class InProcessServerCapabilitiesTest {

    @Test
    void theInProcessServerOffersWhatItWasExtendedWith(TestMongo mongo) {
        assertThat(mongo.capabilities()).contains(Capability.PRE_IMAGES, Capability.UPDATE_DESCRIPTIONS,
                Capability.LOOKUP_FIELDS_WITH_PIPELINE);
    }

    @Test
    void theInProcessServerOffersNoneOfTheOtherReplicaSetFeatures(TestMongo mongo) {
        assertThat(mongo.capabilities()).doesNotContain(Capability.TRANSACTIONS, Capability.PIPELINE_UPDATES,
                Capability.UNION_WITH, Capability.DATABASE_WATCH, Capability.GRAPH_LOOKUP_RESTRICT,
                Capability.SPLIT_LARGE_EVENTS);
    }

    @Test
    void capabilityDescriptionsNameTheFeature() {
        assertThat(Capability.PRE_IMAGES.description()).contains("pre-images");
        assertThat(Capability.TRANSACTIONS.description()).contains("transactions");
    }
}
