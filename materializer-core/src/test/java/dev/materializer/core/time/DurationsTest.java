package dev.materializer.core.time;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DurationsTest {

    @Test
    void durationsReadAsInProperties() {
        assertThat(Durations.text(Duration.ofSeconds(1))).isEqualTo("1s");
        assertThat(Durations.text(Duration.ofMillis(200))).isEqualTo("200ms");
        assertThat(Durations.text(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(Durations.text(Duration.ofHours(6))).isEqualTo("6h");
        assertThat(Durations.text(Duration.ofMillis(1500))).isEqualTo("1s500ms");
        assertThat(Durations.text(Duration.ZERO)).isEqualTo("0s");
        assertThat(Durations.text(Duration.ofNanos(300))).isEqualTo("300ns");
        assertThat(Durations.text(Duration.ofSeconds(-2))).isEqualTo("-2s");
    }
}
