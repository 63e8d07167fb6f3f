package dev.materializer.core.engine;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import ch.qos.logback.classic.Level;
import dev.materializer.core.CapturedLog;
import dev.materializer.core.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The WARN of frequent broadcasts: at the threshold within the window, never below it, once per source. */
class BroadcastWarningTest {

    private final ManualClock clock = new ManualClock();

    private CapturedLog logged;

    /** Sources whose views need old keys, so the engine's option would turn their pre-images on. */
    private final BroadcastWarning warning = new BroadcastWarning(clock, Set.of("orders")::contains);

    @BeforeEach
    void capture() {
        logged = CapturedLog.of(BroadcastWarning.class);
    }

    @AfterEach
    void release() {
        logged.close();
    }

    private void broadcasts(String source, int count, Duration apart) {
        for (int i = 0; i < count; i++) {
            warning.heard(source, 10);
            clock.advance(apart);
        }
    }

    private List<String> warnings() {
        return logged.at(Level.WARN);
    }

    @Test
    void theHundredthBroadcastWithinAMinuteWarnsWithTheCountAndTheRemedies() {
        broadcasts("orders", BroadcastWarning.THRESHOLD - 1, Duration.ofMillis(500));
        assertThat(warnings()).as("99 within a minute").isEmpty();

        warning.heard("orders", 100);

        assertThat(warnings()).singleElement().satisfies(message -> assertThat(message)
            .contains("Events of orders often name no partition: 100 within 1m, the last reaching 100 partitions",
                    "materializer.enable-pre-images: true",
                    "collMod orders {changeStreamPreAndPostImages: {enabled: true}}", "storage source",
                    "materializer.routing.broadcast"));
    }

    @Test
    void broadcastsSpreadOverMoreThanAMinuteNeverWarn() {
        // One every 0.61 s: any 100 in a row span 60.39 s, so a window of 1 minute never holds 100.
        broadcasts("orders", 1_000, Duration.ofMillis(610));
        assertThat(warnings()).isEmpty();
    }

    @Test
    void theWindowSlides() {
        broadcasts("orders", BroadcastWarning.THRESHOLD - 1, Duration.ZERO);
        clock.advance(BroadcastWarning.WINDOW);
        warning.heard("orders", 10);
        assertThat(warnings()).as("the first 99 are a minute old: they left the window").isEmpty();

        broadcasts("orders", BroadcastWarning.THRESHOLD - 2, Duration.ofMillis(1));
        assertThat(warnings()).as("99 within it").isEmpty();
        warning.heard("orders", 10);
        assertThat(warnings()).hasSize(1);
    }

    @Test
    void eachSourceWarnsOnceForTheLifeOfTheEngine() {
        broadcasts("orders", BroadcastWarning.THRESHOLD, Duration.ZERO);
        broadcasts("orders", 10 * BroadcastWarning.THRESHOLD, Duration.ZERO);
        clock.advance(Duration.ofHours(1));
        broadcasts("orders", 10 * BroadcastWarning.THRESHOLD, Duration.ZERO);
        assertThat(warnings()).hasSize(1);

        broadcasts("customers", BroadcastWarning.THRESHOLD, Duration.ZERO);
        assertThat(warnings()).hasSize(2);
        assertThat(warnings().get(1)).as("the option would not turn them on for customers: the command does")
            .contains("Events of customers", "run collMod customers", "only for sources whose key-scoped views")
            .doesNotContain("set materializer.enable-pre-images");
    }

    @Test
    void broadcastsThatReachedOnePartitionDoNotCount() {
        for (int i = 0; i < 10 * BroadcastWarning.THRESHOLD; i++) {
            warning.heard("orders", 1);
            warning.heard("orders", 0);
        }
        assertThat(warnings()).as("naming the only partition would save nothing").isEmpty();
        broadcasts("orders", BroadcastWarning.THRESHOLD, Duration.ZERO);
        assertThat(warnings()).hasSize(1);
    }
}
