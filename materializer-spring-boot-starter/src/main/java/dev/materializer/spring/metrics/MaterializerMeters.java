package dev.materializer.spring.metrics;

import java.util.List;
import java.util.Locale;

import dev.materializer.core.ViewState;

/** The names and tags of the materializer's meters: dashboards and alerts depend on them. */
public final class MaterializerMeters {

    /**
     * Gauge: views whose partition this instance owns, by {@link #TAG_STATE}; summed over the
     * instances of a cluster, each view counts once.
     */
    public static final String VIEWS = "materializer.views";

    /** Gauge: change streams open now. */
    public static final String STREAMS_OPEN = "materializer.streams.open";

    /** Gauge: change streams this instance keeps, open or reopening: {@link #STREAMS_OPEN} is below it while one reopens. */
    public static final String STREAMS_WATCHED = "materializer.streams.watched";

    /** Gauge: passes running or queued now. */
    public static final String PASSES_IN_FLIGHT = "materializer.passes.in.flight";

    /**
     * Gauge: seconds since the oldest change heard and not yet applied by a pass was written; 0 when
     * the engine is caught up (see {@link MaterializerLag}).
     */
    public static final String LAG = "materializer.lag";

    /** Timer: passes of one view, by {@link #TAG_OUTCOME}, {@link #TAG_MODE} and {@link #TAG_SCOPE}. */
    public static final String PASS = "materializer.pass";

    /** Counter: change events received, by {@link #TAG_SOURCE}. */
    public static final String CHANGES = "materializer.changes";

    /**
     * Counter: change events that named no partition, so they reached every partition reading their
     * source (a delete or an update without a pre-image, say), by {@link #TAG_SOURCE}; see
     * {@link dev.materializer.core.MaterializerListener#onBroadcastEvent}.
     */
    public static final String ROUTING_BROADCAST = "materializer.routing.broadcast";

    /** Counter: target rows inserted or replaced. */
    public static final String ROWS_WRITTEN = "materializer.rows.written";

    /** Counter: target rows removed. */
    public static final String ROWS_REMOVED = "materializer.rows.removed";

    /**
     * Counter: rows of drift the reconciler found (and healed): the rows that differed in views
     * that differed from their pipeline while no work was pending for their partition. Tag-free, and
     * present from the start, so an alert on its increase always has a series.
     */
    public static final String RECONCILE_DRIFT = "materializer.reconcile.drift";

    /** Counter: views the reconciler compared with their pipeline, by {@link #TAG_RESULT}. */
    public static final String RECONCILE_VIEWS = "materializer.reconcile.views";

    /** Tag of {@link #VIEWS}: {@code pending}, {@code ok}, {@code errored} or {@code cycle}. */
    public static final String TAG_STATE = "state";

    /** Tag of {@link #PASS}: {@code changed}, {@code unchanged}, {@code errored} or {@code superseded}. */
    public static final String TAG_OUTCOME = "outcome";

    /** Tag of {@link #PASS}: {@code transaction}, {@code generation} or {@code none}. */
    public static final String TAG_MODE = "mode";

    /** Tag: what a pass recomputed, {@code full} or {@code keys}. */
    public static final String TAG_SCOPE = "scope";

    /** Tag of {@link #CHANGES} and {@link #ROUTING_BROADCAST}: the source collection. */
    public static final String TAG_SOURCE = "source";

    /**
     * Tag of {@link #RECONCILE_VIEWS}: {@code in_sync} (nothing differed), {@code drift} (it differed
     * with no work pending) or {@code pending} (it differed while work was pending for its partition:
     * that work, not drift).
     */
    public static final String TAG_RESULT = "result";

    /** {@link #TAG_RESULT}: nothing differed. */
    public static final String RESULT_IN_SYNC = "in_sync";

    /** {@link #TAG_RESULT}: the view differed with no work pending, and was rewritten. */
    public static final String RESULT_DRIFT = "drift";

    /** {@link #TAG_RESULT}: the view differed while work was pending for its partition. */
    public static final String RESULT_PENDING = "pending";

    /** The results {@link #RECONCILE_VIEWS} reports, each always present (zero until it happens). */
    public static final List<String> RECONCILE_RESULTS = List.of(RESULT_IN_SYNC, RESULT_DRIFT, RESULT_PENDING);

    /** The view states {@link #VIEWS} reports, each always present (zero when no view has it). */
    public static final List<String> VIEW_STATES = ViewState.VALUES;

    private MaterializerMeters() {
    }

    /** An enum constant as a tag value: lower case. */
    static String tagValue(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
