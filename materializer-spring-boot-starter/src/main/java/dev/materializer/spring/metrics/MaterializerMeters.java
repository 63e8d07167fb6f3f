package dev.materializer.spring.metrics;

import java.util.List;
import java.util.Locale;

/** The names and tags of the materializer's meters: dashboards and alerts depend on them. */
public final class MaterializerMeters {

    /** Gauge: views this instance knows, by {@link #TAG_STATE}. */
    public static final String VIEWS = "materializer.views";

    /** Gauge: change streams open now. */
    public static final String STREAMS_OPEN = "materializer.streams.open";

    /** Gauge: passes running or queued now. */
    public static final String PASSES_IN_FLIGHT = "materializer.passes.in.flight";

    /** Gauge: seconds the last change event was behind the server's time; NaN while unknown. */
    public static final String LAG = "materializer.lag";

    /** Timer: passes of one view, by {@link #TAG_OUTCOME} and {@link #TAG_MODE}. */
    public static final String PASS = "materializer.pass";

    /** Counter: change events received, by {@link #TAG_SOURCE}. */
    public static final String CHANGES = "materializer.changes";

    /** Counter: target rows inserted or replaced. */
    public static final String ROWS_WRITTEN = "materializer.rows.written";

    /** Counter: target rows removed. */
    public static final String ROWS_REMOVED = "materializer.rows.removed";

    /** Tag of {@link #VIEWS}: {@code pending}, {@code ok}, {@code errored} or {@code cycle}. */
    public static final String TAG_STATE = "state";

    /** Tag of {@link #PASS}: {@code changed}, {@code unchanged}, {@code errored} or {@code superseded}. */
    public static final String TAG_OUTCOME = "outcome";

    /** Tag of {@link #PASS}: {@code transaction}, {@code generation} or {@code none}. */
    public static final String TAG_MODE = "mode";

    /** Tag of {@link #CHANGES}: the source collection. */
    public static final String TAG_SOURCE = "source";

    /** The view states {@link #VIEWS} reports, each always present (zero when no view has it). */
    public static final List<String> VIEW_STATES = List.of("pending", "ok", "errored", "cycle");

    private MaterializerMeters() {
    }

    /** An enum constant as a tag value: lower case. */
    static String tagValue(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
