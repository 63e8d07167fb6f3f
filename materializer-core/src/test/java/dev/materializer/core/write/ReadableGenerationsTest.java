package dev.materializer.core.write;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.Generation;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import dev.materializer.core.view.ViewStatus.Previous;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which generations readers may still hold, however many flips follow one another: each one
 * superseded within the grace, kept in a list the flips carry over and bound.
 */
class ReadableGenerationsTest {

    private static final Duration GRACE = Duration.ofSeconds(160);

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private final ReadableGenerations readable = new ReadableGenerations(GRACE);

    @Test
    void theOldestGenerationSupersededWithinTheGraceIsTheOldestReadableHoweverManyFlipsCame() {
        // 1 → 2 at T0, 2 → 3 at T0 + 1 s, 3 → 4 at T0 + 2 s
        ViewStatus status = status(4, new Previous(Generation.of(3), T0.plusSeconds(2)),
                new Previous(Generation.of(1), T0), new Previous(Generation.of(2), T0.plusSeconds(1)));

        assertThat(readable.oldestReadable(status, T0.plusSeconds(3))).isEqualTo(1);
        assertThat(readable.oldestReadable(status, T0.plus(GRACE))).as("1 has had its grace").isEqualTo(2);
        assertThat(readable.oldestReadable(status, T0.plus(GRACE).plusSeconds(1))).isEqualTo(3);
        assertThat(readable.oldestReadable(status, T0.plus(GRACE).plusSeconds(2))).as("only the current one")
            .isEqualTo(4);
    }

    @Test
    void aFlipFromNothingOrFromTheFormatBeforeVersionsWithinItsGraceLeavesNothingOldYet() {
        assertThat(readable.oldestReadable(status(1, new Previous(null, T0)), T0.plusSeconds(1))).isZero();
        assertThat(readable.oldestReadable(status(1, new Previous(Generation.legacy(new ObjectId()), T0)),
                T0.plusSeconds(1))).isZero();
        assertThat(readable.oldestReadable(ViewStatus.NONE, T0)).as("no generation yet").isZero();
    }

    @Test
    void aFlipCarriesThePreviousGenerationOverAndLeavesOutWhatHadItsGrace() {
        ViewStatus start = status(4, new Previous(Generation.of(3), T0.plus(GRACE)),
                new Previous(Generation.of(1), T0), new Previous(Generation.of(2), T0.plusSeconds(60)));

        List<Previous> kept = readable.carriedOver(start, T0.plus(GRACE).plusSeconds(1));

        assertThat(kept).containsExactly(new Previous(Generation.of(2), T0.plusSeconds(60)),
                new Previous(Generation.of(3), T0.plus(GRACE)));
    }

    @Test
    void aFlipFromNothingIsNotCarriedOver() {
        assertThat(readable.carriedOver(status(1, new Previous(null, T0)), T0)).isEmpty();
    }

    @Test
    void flipsFasterThanTheSlicesShareEntriesSoTheListStaysBoundedAndNoGenerationLosesItsGrace() {
        long sliceMillis = GRACE.toMillis() / ReadableGenerations.SLICES_PER_GRACE;
        ViewStatus status = status(1, null);
        List<Instant> flips = new ArrayList<>();
        int maxSize = 0;
        // A flip every 100 ms for three graces: 4,800 flips
        for (int n = 1; n <= 4800; n++) {
            Instant at = T0.plusMillis(100L * n);
            flips.add(at);
            List<Previous> earlier = readable.carriedOver(status, at);
            maxSize = Math.max(maxSize, earlier.size());
            status = new ViewStatus(ViewState.OK, null, null, Generation.of(n + 1),
                    new Previous(status.generation(), at), earlier, null, 0, n + 1);
            // Generation g was current until the flip at flips[g - 1]: a reader of it holds it until its grace ends
            Instant now = at.plusMillis(50);
            long oldest = readable.oldestReadable(status, now);
            for (int generation = 1; generation <= n; generation++) {
                boolean mayBeHeld = now.isBefore(flips.get(generation - 1).plus(GRACE));
                if (mayBeHeld) {
                    assertThat(oldest).as("generation %d, held at flip %d", generation, n).isLessThanOrEqualTo(generation);
                    break;
                }
            }
            // ... and a generation past its grace by more than a slice is let go
            long expired = 0;
            for (int generation = 1; generation <= n; generation++) {
                if (!now.isBefore(flips.get(generation - 1).plus(GRACE).plusMillis(sliceMillis))) {
                    expired = generation;
                }
            }
            assertThat(oldest).as("at flip %d", n).isGreaterThan(expired);
        }
        assertThat(maxSize).as("entries kept at once").isLessThanOrEqualTo(ReadableGenerations.SLICES_PER_GRACE + 1);
    }

    private static ViewStatus status(long current, Previous previous, Previous... earlier) {
        return new ViewStatus(ViewState.OK, null, null, Generation.of(current), previous, List.of(earlier), null, 0,
                current);
    }
}
