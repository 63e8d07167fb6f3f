package dev.materializer.core.server;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class CapabilityDetectorTest {

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "8.0.4, true",
        "7.0.0, true",
        "7.0.2-ent, true",
        "6.0.9, true",
        "6.0.12, true",
        "6.3.1, true",
        "6.0.8, false",
        "6.0.0, false",
        "5.0.0, false",
        "4.4.29, false",
        "unknown, true"})
    void theVersionRulesOutOnlyServersThatSurelyLackSplitEvents(String version, boolean mayOffer) {
        assertThat(CapabilityDetector.versionMayOfferSplit(version)).isEqualTo(mayOffer);
    }
}
