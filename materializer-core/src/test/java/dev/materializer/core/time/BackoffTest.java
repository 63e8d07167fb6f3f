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

    @Test
    void theJitterSpreadsAWaitOverTheUpperHalfOfItsDoublingWait() {
        assertThat(Backoff.jittered(5, FIRST, MAX, () -> 0.0)).isEqualTo(Duration.ofSeconds(8));
        assertThat(Backoff.jittered(5, FIRST, MAX, () -> 0.5)).isEqualTo(Duration.ofSeconds(12));
        assertThat(Backoff.jittered(5, FIRST, MAX, () -> 0.999_999)).isLessThan(Duration.ofSeconds(16))
            .isGreaterThan(Duration.ofMillis(15_999));
        assertThat(Backoff.jittered(1_000, FIRST, MAX, () -> 0.0)).isEqualTo(Duration.ofSeconds(15));
        assertThat(Backoff.jittered(1_000, FIRST, MAX, () -> 0.999_999)).isLessThanOrEqualTo(MAX);
    }

    @Test
    void twoInstancesFailingTogetherRetryAtDifferentMoments() {
        Duration one = Backoff.jittered(4, FIRST, MAX, () -> 0.1);
        Duration other = Backoff.jittered(4, FIRST, MAX, () -> 0.7);
        assertThat(one).isNotEqualTo(other);
        assertThat(one).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(8));
        assertThat(other).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(8));
    }

    @Test
    void theFirstRetryKeepsItsWaitAndNoneGoesBelowIt() {
        assertThat(Backoff.jittered(1, FIRST, MAX, () -> 0.0)).isEqualTo(FIRST);
        assertThat(Backoff.jittered(1, FIRST, MAX, () -> 0.9)).isEqualTo(FIRST);
        assertThat(Backoff.jittered(2, FIRST, MAX, () -> 0.0)).isEqualTo(FIRST);
        assertThat(Backoff.jittered(2, FIRST, MAX, () -> 0.5)).isEqualTo(Duration.ofMillis(1_500));
    }

    @Test
    void aSourceOutOfRangeIsClampedToTheWait() {
        assertThat(Backoff.jittered(3, FIRST, MAX, () -> -3)).isEqualTo(Duration.ofSeconds(2));
        assertThat(Backoff.jittered(3, FIRST, MAX, () -> 7)).isEqualTo(Duration.ofSeconds(4));
    }
}
