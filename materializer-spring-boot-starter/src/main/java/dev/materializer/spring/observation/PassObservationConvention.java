package dev.materializer.spring.observation;

import java.util.Locale;

import dev.materializer.spring.metrics.MaterializerMeters;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name and keys of a pass's observation. Low cardinality (fit for meters): {@code outcome},
 * {@code mode} and {@code scope}, as on the {@code materializer.pass} timer ({@code none} while
 * the pass has not reported, e.g. for a pass that ended without a report). High cardinality (for
 * traces only): {@code partition} and {@code view}, since an instance may have tens of thousands of
 * views. Define a bean of this type to change them.
 */
public class PassObservationConvention implements ObservationConvention<PassObservationContext> {

    /**
     * The observation's name. Not {@code materializer.pass}: Boot's meter handler makes a timer of
     * each observation under its name, and a second {@code materializer.pass} timer with other tag
     * keys (the handler adds {@code error}) would clash with the starter's own timer in Prometheus.
     */
    public static final String NAME = "materializer.view.pass";

    /** The key of the view's partition. */
    public static final String PARTITION = "partition";

    /** The key of the view's id. */
    public static final String VIEW = "view";

    static final String UNKNOWN = "none";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(PassObservationContext context) {
        return "materializer pass";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(PassObservationContext context) {
        var report = context.getReport();
        if (report == null) {
            return KeyValues.of(KeyValue.of(MaterializerMeters.TAG_OUTCOME, UNKNOWN),
                    KeyValue.of(MaterializerMeters.TAG_MODE, UNKNOWN), KeyValue.of(MaterializerMeters.TAG_SCOPE, UNKNOWN));
        }
        return KeyValues.of(KeyValue.of(MaterializerMeters.TAG_OUTCOME, word(report.outcome())),
                KeyValue.of(MaterializerMeters.TAG_MODE, word(report.mode())),
                KeyValue.of(MaterializerMeters.TAG_SCOPE, word(report.scope())));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(PassObservationContext context) {
        return KeyValues.of(KeyValue.of(PARTITION, context.getView().partition()),
                KeyValue.of(VIEW, context.getView().id()));
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof PassObservationContext;
    }

    private static String word(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
