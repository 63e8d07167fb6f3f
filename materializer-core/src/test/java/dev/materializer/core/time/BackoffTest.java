package dev.materializer.core.time;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffTest {

    private static final Duration FIRST = Duration.ofSeconds(1);

    private static final Duration MAX = Duration.ofSeconds(30);

    @Test
    void theWaitDoublesWithEachFailureUpToTheMax() {
        assertThat(Backoff.after(0, FIRST, MAX)).isEqualTo(FIRST);
        assertThat(Backoff.after(1, FIRST, MAX)).isEqualTo(FIRST);
        assertThat(Backoff.after(2, FIRST, MAX)).isEqualTo(Duration.ofSeconds(2));
        assertThat(Backoff.after(5, FIRST, MAX)).isEqualTo(Duration.ofSeconds(16));
        assertThat(Backoff.after(6, FIRST, MAX)).isEqualTo(MAX);
        assertThat(Backoff.after(1_000, FIRST, MAX)).isEqualTo(MAX);
    }
}
