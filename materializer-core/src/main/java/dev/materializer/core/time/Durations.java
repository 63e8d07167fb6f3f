package dev.materializer.core.time;

import java.time.Duration;

/**
 * Durations as people write them in properties and read them in logs: {@code 200ms}, {@code 1s},
 * {@code 1m30s}, {@code 2h} — not ISO-8601's {@code PT1M30S}.
 *
 * <p>Stateless.
 */
public final class Durations {

    private Durations() {
    }

    /**
     * The duration in the units of Boot's properties, largest first.
     * @param duration a duration
     * @return e.g. {@code 1m30s}; {@code 0s} for zero
     */
    public static String text(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        StringBuilder text = new StringBuilder(duration.isNegative() ? "-" : "");
        Duration rest = duration.abs();
        append(text, rest.toDaysPart(), "d");
        append(text, rest.toHoursPart(), "h");
        append(text, rest.toMinutesPart(), "m");
        append(text, rest.toSecondsPart(), "s");
        append(text, rest.toMillisPart(), "ms");
        if (text.length() == (duration.isNegative() ? 1 : 0)) {
            text.append(rest.toNanos()).append("ns");
        }
        return text.toString();
    }

    private static void append(StringBuilder text, long amount, String unit) {
        if (amount > 0) {
            text.append(amount).append(unit);
        }
    }
}
